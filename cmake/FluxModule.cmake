# flux_module(NAME <name> SOURCES <files...> DEPS <targets...>)
# One static library per module (src/<name>), public headers in include/flux/<name>.
function(flux_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_library(flux_${M_NAME} STATIC ${M_SOURCES})
  add_library(flux::${M_NAME} ALIAS flux_${M_NAME})
  target_include_directories(flux_${M_NAME} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(flux_${M_NAME} PUBLIC ${M_DEPS} PRIVATE flux_warnings)
endfunction()
