# Helpers that turn files into C++ sources at build time, so the binary carries
# its shaders and built-in profiles and runs from any directory.

# seatmark_compile_shader(OUT_VAR shader.vert): compiles GLSL to SPIR-V with glslc and
# emits a C initializer list (glslc -mfmt=c) to be #included inside an array.
function(seatmark_compile_shaders out_var)
  set(outputs)
  foreach(src ${ARGN})
    get_filename_component(name ${src} NAME)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/shaders/${name}.inc)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/shaders
      COMMAND ${GLSLC} --target-env=vulkan1.1 -O -Werror -mfmt=c -MD -MF ${out}.d -o ${out} ${CMAKE_CURRENT_SOURCE_DIR}/${src}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${src}
      DEPFILE ${out}.d
      COMMENT "glslc ${name}")
    list(APPEND outputs ${out})
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()

# seatmark_embed_text(OUT_CPP NAMESPACE FUNC files...): writes a .cpp defining
#   std::vector<EmbeddedFile> NAMESPACE::FUNC()  with {relative path, contents}.
function(seatmark_embed_text out_cpp ns func)
  set(abs_files)
  foreach(f ${ARGN})
    list(APPEND abs_files ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DNS=${ns} -DFUNC=${func}
            -DROOT=${SEATMARK_ROOT} "-DFILES=${abs_files}"
            -P ${SEATMARK_ROOT}/cmake/embed_text.cmake
    DEPENDS ${abs_files} ${SEATMARK_ROOT}/cmake/embed_text.cmake
    COMMENT "embedding ${func}"
    VERBATIM)
endfunction()
