# The Windows build (MinGW-w64, cmake/mingw-w64-x86_64.cmake): seatmark.exe with the two
# subcommands a Windows host runs, `session` and `agent`, and the GPU-less unit tests as
# Windows executables. The controller side (orchestrator, store, report, monitor, stage)
# stays on Linux. Included by the top-level CMakeLists.txt, which returns after it.

# One include folder with only the header-only packages this build uses, linked from the
# host's /usr/include: pointing MinGW at /usr/include itself would pull in glibc's headers.
set(SEATMARK_HOST_INCLUDE /usr/include CACHE PATH "Where the header-only Debian packages lie")
set(win_inc ${CMAKE_BINARY_DIR}/deps-include)
file(MAKE_DIRECTORY ${win_inc})
# vcpkg (the MSVC build, CMakePresets.json) puts stb's headers at the top of its include folder.
if(NOT EXISTS ${SEATMARK_HOST_INCLUDE}/stb AND EXISTS ${SEATMARK_HOST_INCLUDE}/stb_image.h)
  file(MAKE_DIRECTORY ${win_inc}/stb)
  foreach(h stb_image.h stb_image_write.h)
    file(CREATE_LINK ${SEATMARK_HOST_INCLUDE}/${h} ${win_inc}/stb/${h} SYMBOLIC COPY_ON_ERROR)
  endforeach()
  set(stb_linked ON)
endif()
foreach(h vulkan vk_video toml++ CLI nlohmann glm stb boost doctest xxhash.h)
  if(h STREQUAL "stb" AND stb_linked)
    continue()
  endif()
  if(NOT EXISTS ${SEATMARK_HOST_INCLUDE}/${h})
    message(FATAL_ERROR "${SEATMARK_HOST_INCLUDE}/${h} is missing: run scripts/deps.sh (it installs the header packages)")
  endif()
  file(CREATE_LINK ${SEATMARK_HOST_INCLUDE}/${h} ${win_inc}/${h} SYMBOLIC COPY_ON_ERROR)
endforeach()

function(seatmark_header_target name)
  add_library(${name} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${win_inc})
endfunction()
seatmark_header_target(tomlplusplus::tomlplusplus)
seatmark_header_target(CLI11::CLI11)
seatmark_header_target(nlohmann_json::nlohmann_json)
seatmark_header_target(glm::glm)
seatmark_header_target(doctest::doctest)
seatmark_header_target(stb::stb)
seatmark_header_target(PkgConfig::XXHASH)
# Eigen's own folder holds only Eigen, so it is used where it lies.
add_library(Eigen3::Eigen INTERFACE IMPORTED GLOBAL)
set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${SEATMARK_HOST_INCLUDE}/eigen3)
# xxHash as inline functions: there is no MinGW libxxhash to link.
set_target_properties(PkgConfig::XXHASH PROPERTIES INTERFACE_COMPILE_DEFINITIONS XXH_INLINE_ALL)
seatmark_header_target(Boost::headers)
# Asio on Windows: Winsock; _WIN32_WINNT 0x0A00 (Windows 10) for AF_UNIX and the APIs the agent reads.
set_target_properties(Boost::headers PROPERTIES INTERFACE_LINK_LIBRARIES "ws2_32;mswsock"
  INTERFACE_COMPILE_DEFINITIONS "_WIN32_WINNT=0x0A00;WINVER=0x0A00;NOMINMAX;WIN32_LEAN_AND_MEAN")
add_library(Threads::Threads INTERFACE IMPORTED GLOBAL)

if(MSVC)
  # Native build (documented in docs/windows.md, not run here): vcpkg's vulkan-loader brings
  # vulkan-1.lib; the C runtime is linked statically as with MinGW.
  find_package(Vulkan REQUIRED)
  set_property(TARGET Vulkan::Vulkan APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS VK_USE_PLATFORM_WIN32_KHR)
  set(CMAKE_MSVC_RUNTIME_LIBRARY "MultiThreaded")
  add_custom_target(vulkan_import_lib)
else()
  # vulkan-1.dll's import library, made from the headers (cmake/vulkan_def.cmake).
  set(vk_def ${CMAKE_BINARY_DIR}/vulkan-1.def)
  set(vk_lib ${CMAKE_BINARY_DIR}/libvulkan-1.a)
  set(vk_headers ${SEATMARK_HOST_INCLUDE}/vulkan/vulkan_core.h ${SEATMARK_HOST_INCLUDE}/vulkan/vulkan_win32.h)
  add_custom_command(OUTPUT ${vk_lib}
    COMMAND ${CMAKE_COMMAND} "-DHEADERS=${vk_headers}" -DOUT=${vk_def} -P ${SEATMARK_ROOT}/cmake/vulkan_def.cmake
    COMMAND ${CMAKE_DLLTOOL} -d ${vk_def} -l ${vk_lib}
    DEPENDS ${vk_headers} ${SEATMARK_ROOT}/cmake/vulkan_def.cmake
    COMMENT "vulkan-1.dll import library" VERBATIM)
  add_custom_target(vulkan_import_lib DEPENDS ${vk_lib})
  add_library(Vulkan::Vulkan INTERFACE IMPORTED GLOBAL)
  set_target_properties(Vulkan::Vulkan PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${win_inc}
    INTERFACE_LINK_LIBRARIES ${vk_lib} INTERFACE_COMPILE_DEFINITIONS VK_USE_PLATFORM_WIN32_KHR)

  # One self-contained exe: the C++ runtime and winpthreads linked in, so a host needs no
  # MinGW DLLs beside it (only vulkan-1.dll, which every Windows GPU driver installs).
  add_link_options(-static -static-libgcc -static-libstdc++)
endif()

add_compile_definitions(_WIN32_WINNT=0x0A00 WINVER=0x0A00 NOMINMAX WIN32_LEAN_AND_MEAN UNICODE _UNICODE)

add_subdirectory(common)
add_subdirectory(workloads)
add_subdirectory(core)
add_subdirectory(pack)
add_subdirectory(image)
add_subdirectory(client)
add_dependencies(seatmark_client vulkan_import_lib)
# What `seatmark.exe agent` samples with: the host figures (host_figures.cpp over
# host_proc_windows.cpp), NVML (nvml.dll), the PDH GPU counters and the software share; the rest
# of orchestrator/ is the Linux controller.
set(o ${SEATMARK_ROOT}/orchestrator)
add_library(seatmark_host_windows STATIC ${o}/host_figures.cpp ${o}/host_cpu.cpp ${o}/host_proc_windows.cpp
  ${o}/gpu_nvml.cpp ${o}/gpu_snapshot.cpp ${o}/gpu_pdh.cpp ${o}/gpu_pdh_windows.cpp ${o}/gpu_software.cpp
  ${o}/gpu_telemetry.cpp)
target_link_libraries(seatmark_host_windows PUBLIC seatmark_core seatmark_common pdh ntdll psapi)
add_subdirectory(agent)
add_subdirectory(app)
add_subdirectory(tests/windows)
