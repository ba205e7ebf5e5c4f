# `cmake --install` and the Debian packages (scripts/package.sh, CPack). Three components, so the
# core package stays small: `core` (seatmark, seatmark-session, the SQLite extension, the built-in
# profiles and example plans, docs), `launch` (seatmark-launch, which links FreeRDP) and `cad`
# (seatmark-cad-mesher, which links OpenCASCADE). seatmark finds its siblings beside its own
# executable (common/exe_path), so all executables go to one bin folder.
include(GNUInstallDirs)

install(TARGETS seatmark seatmark-session RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT core)
install(TARGETS seatmark_sqlite LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/seatmark COMPONENT core)
install(DIRECTORY ${SEATMARK_ROOT}/workloads/profiles ${SEATMARK_ROOT}/workloads/plans
        DESTINATION ${CMAKE_INSTALL_DATADIR}/seatmark COMPONENT core)
install(FILES ${SEATMARK_ROOT}/report/examples/references.toml ${SEATMARK_ROOT}/report/examples/pool-references.toml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/seatmark/references COMPONENT core)
install(FILES ${SEATMARK_ROOT}/README.md ${SEATMARK_ROOT}/docs/design.md ${SEATMARK_ROOT}/docs/store.md
              ${SEATMARK_ROOT}/docs/live-api.md ${SEATMARK_ROOT}/docs/windows.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT core)
install(TARGETS seatmark-launch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT launch)
install(TARGETS seatmark-cad-mesher RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cad)
