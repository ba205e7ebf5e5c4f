# Writes a MinGW .def for vulkan-1.dll from the Vulkan headers: every command prototype in
# vulkan_core.h and vulkan_win32.h. Windows' loader (and Wine's) exports the core commands and
# the WSI ones; dlltool makes an import library from this list, so the exe loads vulkan-1.dll at
# start-up as any Windows Vulkan program does. A command the loader does not export would fail
# at load time; the Wine tests load the exe, so that is caught.
# Usage: cmake -D HEADERS="a.h;b.h" -D OUT=vulkan-1.def -P vulkan_def.cmake
set(names)
foreach(h ${HEADERS})
  file(STRINGS ${h} lines REGEX "^VKAPI_ATTR .* VKAPI_CALL vk[A-Za-z0-9]+\\(")
  foreach(l ${lines})
    string(REGEX REPLACE "^.* VKAPI_CALL (vk[A-Za-z0-9]+)\\(.*$" "\\1" n "${l}")
    list(APPEND names ${n})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(JOIN names "\n" body)
file(WRITE ${OUT} "LIBRARY vulkan-1.dll\nEXPORTS\n${body}\n")
