# cmake -P CheckInstall.cmake: installs the build tree BUILD_DIR into a fresh
# prefix under WORK_DIR, checks that it holds the narrow API and nothing of
# the internals (libcomprehend.so, comprehend.h and comprehend.hpp, whose
# includes name no LLVM, isl or OpenCL header; no static library, no other
# header), builds examples/api/*.cpp and a C program as another project with
# find_package(Comprehend) + Comprehend::comprehend and default flags, runs
# them, runs the installed driver, and imports the installed Python package
# from outside the build tree and runs a def. Any failure is a fatal error.
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
    lib/libcomprehend.so include/comprehend/comprehend.h
    include/comprehend/comprehend.hpp)
if(PYTHON)
  list(APPEND expected ${PYTHON_INSTALL_DIR}/comprehend/__init__.py)
endif()
foreach(path ${expected})
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "not installed: ${prefix}/${path}")
  endif()
endforeach()

# The internals stay in the build tree.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
if(NOT headers STREQUAL "comprehend/comprehend.h;comprehend/comprehend.hpp")
  message(FATAL_ERROR "installed headers beyond the API: ${headers}")
endif()
file(GLOB_RECURSE archives ${prefix}/*.a)
if(archives)
  message(FATAL_ERROR "installed static libraries: ${archives}")
endif()
foreach(header comprehend.h comprehend.hpp)
  file(STRINGS ${prefix}/include/comprehend/${header} includes
    REGEX "^#include")
  foreach(line ${includes})
    if(line MATCHES "llvm|isl|CL/|OpenCL|spirv")
      message(FATAL_ERROR "${header} includes a dependency: ${line}")
    endif()
  endforeach()
endforeach()

set(launcher)
if(COMPILER_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}
               -DCMAKE_C_COMPILER_LAUNCHER=${COMPILER_LAUNCHER})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/install/consumer
    -B ${WORK_DIR}/consumer -G Ninja -DCMAKE_PREFIX_PATH=${prefix} ${launcher}
    -DEXAMPLES_DIR=${SOURCE_DIR}/examples/api)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/tc_api 3 9 7 5 --repeat 2
    --cache ${WORK_DIR}/tuning.json --tune 0.5)
message(STATUS "${output}")
if(NOT output MATCHES "max relative error" OR NOT EXISTS ${WORK_DIR}/tuning.json)
  message(FATAL_ERROR "unexpected tc_api output: ${output}")
endif()
run(${WORK_DIR}/consumer/gemm_api 33 17 9 --repeat 2)
message(STATUS "${output}")
run(${WORK_DIR}/consumer/c_status)
message(STATUS "${output}")

run(${prefix}/bin/comprehend check ${SOURCE_DIR}/examples/matmul.tc)

if(NOT PYTHON)
  return()
endif()
# The installed package, from a directory that holds no other copy.
set(ENV{PYTHONPATH} ${prefix}/${PYTHON_INSTALL_DIR})
execute_process(COMMAND ${PYTHON} -c
  "import comprehend, numpy as np
f = comprehend.define(open('${SOURCE_DIR}/examples/matmul.tc').read(), cache='${WORK_DIR}/tuning.json')
a = np.random.rand(3, 4).astype('f4')
b = np.random.rand(4, 5).astype('f4')
c = f(a, b)
assert c.shape == (3, 5) and np.allclose(c, a @ b, rtol=1e-5), c
print(comprehend.__file__)"
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE code
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT out MATCHES "^${prefix}/")
  message(FATAL_ERROR "the installed Python package failed (${code}):\n${out}\n${err}")
endif()
message(STATUS "installed package: ${out}")
