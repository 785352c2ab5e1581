//! Skipping a test that needs root, a loop device or a distribution tool:
//! it prints why and passes elsewhere. `.ci/run` runs as root with every
//! tool installed and sets `QB_REQUIRE_ROOT_TESTS`, under which a skip is a
//! failure, so a green CI means these tests ran.
#![allow(dead_code)]

/// Skips the running test for `why`, or fails it when skips are not
/// allowed.
pub fn skip(why: &str) {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    if std::env::var_os("QB_REQUIRE_ROOT_TESTS").is_some() {
        panic!(
            "{test} would be skipped ({why}), but QB_REQUIRE_ROOT_TESTS is set: \
             run it as root with the tools .ci/run installs"
        );
    }
    eprintln!("skipping {test}: {why}");
}
