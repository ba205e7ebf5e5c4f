/* Linked into every executable of the sanitizer build (SEATMARK_SANITIZE, scripts/sanitize.sh) only.
 *
 * LeakSanitizer runs at exit, after Open MPI, the Vulkan loader and others have dlclose()d the
 * components they loaded. A leak whose stack lies in an unloaded library reads "<unknown module>",
 * so scripts/lsan.supp cannot match it by library name, and a third-party leak then fails a test as
 * if it were seatmark's own. Defined in a library the executable links, this dlclose() comes before
 * libc's in the global lookup scope and so answers every library's call: it keeps the library mapped
 * (the process is about to end anyway) and the leak report names the library. Never built into a
 * normal build: a real program must unload what it loads. */
#include <stddef.h>

int dlclose(void* handle) {
    return handle == NULL ? -1 : 0;
}
