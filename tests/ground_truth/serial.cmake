# Included by CTest after the discovered doctest entries. A ground-truth scenario gives a fake host
# a known CPU capacity (a cgroup) and asserts what seatmark measures against it: a test running
# beside it on the same CPUs is foreign load the scenario did not construct (under `ctest -j2` the
# quota case saw its host CPU at 69 % of its 1 CPU, the rest taken by a neighbour), so these run alone.
set_tests_properties(
    "ground_truth/ground truth: a run pinned to 1 CPU of a cpuset holds 2 sessions of 0.4 CPU, judged against that 1 CPU"
    "ground_truth/ground truth: a run under a CFS quota of 1 CPU holds 2 sessions of 0.4 CPU, judged against that quota"
    PROPERTIES RUN_SERIAL TRUE)
