# Reading a truth set's safetensors into numpy (e4m3 operands, f16/bf16/f32 outputs), for k-ranges.py.
import json, struct, sys, numpy as np
def load(path):
    with open(path,'rb') as f:
        n=struct.unpack('<Q',f.read(8))[0]; h=json.loads(f.read(n)); data=f.read()
    h.pop('__metadata__',None); t={}
    DT={'F8_E4M3':np.uint8,'F8_E5M2':np.uint8,'F32':np.float32,'BF16':np.uint16,'F16':np.float16}
    for k,v in h.items():
        b,e=v['data_offsets']; t[k]=(v['dtype'],np.frombuffer(data[b:e],dtype=DT[v['dtype']]).reshape(v['shape']))
    return t
def e4m3(c):
    c=c.astype(np.int64); s=np.where(c&0x80,-1.0,1.0); e=(c>>3)&15; m=c&7
    v=np.where(e==0, m/8*2.0**-6, (1+m/8)*2.0**(e-7)); return s*v
def out_vals(dt,x):
    if dt=='F16': return x.astype(np.float64)
    if dt=='BF16': return (x.astype(np.uint32)<<16).view(np.float32).astype(np.float64)
    return x.astype(np.float64)
