# Included by CTest after the discovered doctest entries: the cases that start the real xrdp
# (tests/launch/rdp_host.h) share sesman's fixed port and one state folder, so one at a time.
set_tests_properties(
    "launch/launch: two RDP sessions end to end on xrdp, watermarks decoded, SSIM sampled, desktops logged off, users removed"
    "launch/launch: faults recorded with their reasons while other sessions go on (wrong password, refused, killed desktop, cut connection)"
    "launch/launch: a join-mode run with three launchers on xrdp, endpoint figures stored, faults recorded while it goes on"
    PROPERTIES RESOURCE_LOCK xrdp)
