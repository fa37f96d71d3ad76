# cmake -P CheckInstall.cmake: installs the build tree BUILD_DIR into a fresh
# prefix under WORK_DIR, builds examples/api/tc_api.cpp as another project
# with find_package(Comprehend) + Comprehend::api and runs it, runs the
# installed driver, and imports the installed Python package from outside
# the build tree. Any failure is a fatal error.
# PYTHON and PYTHON_INSTALL_DIR (the interpreter and where the package goes
# under the prefix) are given when the build has the Python package.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckInstall.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code
    OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${code}): ${command}\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(expected bin/comprehend lib/cmake/Comprehend/ComprehendConfig.cmake
    include/comprehend/api/TcKernel.h include/comprehend/ir/InstViews.h.inc)
if(PYTHON)
  list(APPEND expected ${PYTHON_INSTALL_DIR}/comprehend/__init__.py)
endif()
foreach(path ${expected})
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "not installed: ${prefix}/${path}")
  endif()
endforeach()

set(launcher)
if(COMPILER_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/install/consumer
    -B ${WORK_DIR}/consumer -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} ${launcher}
    -DTC_API_SOURCE=${SOURCE_DIR}/examples/api/tc_api.cpp)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/tc_api 3 9 7 5 --repeat 2
    --cache ${WORK_DIR}/tuning.json)
message(STATUS "${output}")
if(NOT output MATCHES "max relative error")
  message(FATAL_ERROR "unexpected tc_api output: ${output}")
endif()

run(${prefix}/bin/comprehend check ${SOURCE_DIR}/examples/matmul.tc)

if(NOT PYTHON)
  return()
endif()
# The installed package, from a directory that holds no other copy.
set(ENV{PYTHONPATH} ${prefix}/${PYTHON_INSTALL_DIR})
execute_process(COMMAND ${PYTHON} -c
  "import comprehend, numpy as np
f = comprehend.define(open('${SOURCE_DIR}/examples/matmul.tc').read(), cache='${WORK_DIR}/tuning.json')
c = f(np.ones((3, 4), 'f4'), np.ones((4, 5), 'f4'))
assert (c == 4).all() and c.shape == (3, 5), c
print(comprehend.__file__)"
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE code
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT out MATCHES "^${prefix}/")
  message(FATAL_ERROR "the installed Python package failed (${code}):\n${out}\n${err}")
endif()
message(STATUS "installed package: ${out}")
