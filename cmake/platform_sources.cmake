# Platform code lives in one file per concern and platform: NAME_posix.cpp and NAME_windows.cpp
# beside each other (for example common/sleep_posix.cpp and common/sleep_windows.cpp). Folders
# glob their sources and pass the list through here, so each build compiles its own half and no
# other file needs #ifdef _WIN32.
function(seatmark_platform_sources var)
  set(kept)
  foreach(f ${${var}})
    if(WIN32 AND f MATCHES "_posix\\.cpp$")
      continue()
    elseif(NOT WIN32 AND f MATCHES "_windows\\.cpp$")
      continue()
    endif()
    list(APPEND kept ${f})
  endforeach()
  set(${var} ${kept} PARENT_SCOPE)
endfunction()
