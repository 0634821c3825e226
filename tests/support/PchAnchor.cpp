// The one source of ptescope_test_pch_ui: a target whose only job is to own
// the precompiled header the ui suites reuse (tests/CMakeLists.txt).
