# Installs the built project into a scratch prefix, then configures, builds and runs the consumer
# project against it. Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, GENERATOR, CXX_FLAGS (the
# project's own, so that a sanitized library links into a consumer built the same way).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/build
                        -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer failed")
endif()
# The bundled subset replayed through the library's core API and by the installed mmaemu: the
# same verdict.
set(subset ${SOURCE_DIR}/tests/data/h200-subset)
execute_process(COMMAND ${WORK_DIR}/build/consumer ${subset} RESULT_VARIABLE rc OUTPUT_VARIABLE by_library)
execute_process(COMMAND ${WORK_DIR}/prefix/bin/mmaemu replay --truth-dir ${subset}
                RESULT_VARIABLE rc_cli OUTPUT_VARIABLE by_cli ERROR_QUIET)
string(REGEX MATCH "replay: [0-9]+/[0-9]+ recordings bit-exact" cli_verdict "${by_cli}")
string(STRIP "${by_library}" by_library)
if(NOT rc EQUAL 0 OR NOT rc_cli EQUAL 0 OR NOT by_library STREQUAL cli_verdict)
  message(FATAL_ERROR "the consumer's replay (${rc}: ${by_library}) differs from mmaemu replay's (${rc_cli}: ${cli_verdict})")
endif()
message(STATUS "consumer: ${by_library}; mmaemu replay: ${cli_verdict}")
execute_process(COMMAND ${WORK_DIR}/prefix/bin/mmaemu info RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed mmaemu info failed")
endif()
if(EXISTS ${WORK_DIR}/prefix/include/mmaemu/version.hpp.in)
  message(FATAL_ERROR "the template version.hpp.in was installed beside the headers")
endif()
# The installed executable's defaults are the prefix's, never the build machine's source tree.
execute_process(COMMAND ${WORK_DIR}/prefix/bin/mmaemu check-dist --verify-manifest
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "share/mmaemu/kernels")
  message(FATAL_ERROR "the installed check-dist did not check the installed kernels: ${out}")
endif()
execute_process(COMMAND ${WORK_DIR}/prefix/bin/mmaemu build-fatbin --check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "--source")
  message(FATAL_ERROR "the installed build-fatbin took a source tree it was not given: ${out}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
