import json, sys, numpy as np
# Which K ranges did the hardware add? Per-16-element partial dot products (float64) of every
# recording, and for each candidate range [x, z) near the end of K, the share of outputs that the
# recorded value matches with the range missing, or added twice (within 4 f16 half-ulps).
#   k-ranges.py TRUTH_DIR
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth_arrays import load, e4m3, out_vals
root=sys.argv[1]
man=json.load(open(os.path.join(root,'manifest.json')))
for r in man['recordings']:
    t=load(os.path.join(root,r['file']))
    a=e4m3(t[r['a']][1]); b=e4m3(t[r['b']][1]); dt,o=t[r['out']]; y=out_vals(dt,o)
    K=a.shape[1]; alpha=float(r['scale_a'])*float(r['scale_b']); s=r['algorithm']['splitk_num']
    nb=(K+15)//16
    A=a.reshape(a.shape[0],nb,16); B=b.reshape(b.shape[0],nb,16)
    P=np.einsum('imk,jmk->ijm',A,B)  # per 16-block partials
    C=np.concatenate([np.zeros(P.shape[:2]+(1,)),np.cumsum(P,-1)],-1)
    full=C[:,:,-1]
    res=(y/alpha-full).ravel()
    G=-(-K//128); chunk=-(-G//s)*128
    print(r['id'], 'K',K,'s',s,'G',G,'chunk',chunk,'empty',chunk*(s-1)>=K, 'median |res|/|full|', np.median(np.abs(res)/(np.abs(full.ravel())+1e-9)))
    lo=max(0,(K-2*chunk)//16)
    best=[]
    Cf=C.reshape(-1,C.shape[-1])
    tol=np.abs(y.ravel()/alpha)*2**-9+1e-6
    for x in range(lo,nb):
        D=Cf[:,x+1:]-Cf[:,[x]]   # sum over [x, z) for z>x
        for sign,name in [(-1,'missing'),(1,'twice')]:
            e=np.abs(res[:,None]-sign*D)
            ok=(e<=tol[:,None]*4).mean(0)
            j=np.argmax(ok); best.append((ok[j],name,x*16,(x+1+j)*16))
    best.sort(reverse=True); print('   ',best[:4])
