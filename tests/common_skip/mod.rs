//! Skipping a test that needs root, a loop device or a distribution tool:
//! it prints why and passes elsewhere. `.ci/run` runs as root with every
//! tool installed and sets `QB_REQUIRE_ROOT_TESTS`, under which a skip is a
//! failure, so a green CI means these tests ran.
#![allow(dead_code)]

/// Skips `test` for `why`, or fails it when skips are not allowed.
pub fn skip(test: &str, why: &str) {
    if std::env::var_os("QB_REQUIRE_ROOT_TESTS").is_some() {
        panic!(
            "{test} would be skipped ({why}), but QB_REQUIRE_ROOT_TESTS is set: \
             run it as root with the tools .ci/run installs"
        );
    }
    eprintln!("skipping {test}: {why}");
}

/// The name of the running test.
pub fn this_test() -> String {
    std::thread::current().name().unwrap_or("?").to_string()
}
