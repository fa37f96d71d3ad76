# `cmake --install`: libcomprehend.so with its two headers (capi/), the
# driver, the Python package (tools/python) and this CMake package, so that
# another project can
#   find_package(Comprehend REQUIRED)
#   target_link_libraries(app PRIVATE Comprehend::comprehend)
# with default flags (test/install checks exactly that against a temporary
# prefix). The internal static libraries and their headers stay in the
# build tree.
include(CMakePackageConfigHelpers)
set(COMPREHEND_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Comprehend)
install(EXPORT ComprehendTargets
  NAMESPACE Comprehend::
  FILE ComprehendTargets.cmake
  DESTINATION ${COMPREHEND_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/ComprehendConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ComprehendConfig.cmake
  INSTALL_DESTINATION ${COMPREHEND_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/ComprehendConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/ComprehendConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ComprehendConfigVersion.cmake
  DESTINATION ${COMPREHEND_CMAKE_INSTALL_DIR})
