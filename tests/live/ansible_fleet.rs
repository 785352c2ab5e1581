//! `contrib/ansible/fleet.yml` against three hosts reached over real SSH:
//! three `sshd`, each in a network namespace (and UTS namespace, for its own
//! host name) that this test creates, on a veth pair with a private /30 that
//! exists only inside this machine. Keys are made by the test; everything is
//! torn down on every exit path.
//!
//! Three runs, as a user would make them from contrib/ansible: the plans
//! only (all hosts at once); a run where host 1 cannot be reached and host
//! 2's run outlives its timeout while host 3 completes; the rerun that
//! completes hosts 1 and 2 and skips host 3. Checked: the plans printed,
//! the failures reported without stopping the others, nothing left on the
//! hosts after any run, three JSON reports valid against the schema (each
//! with its host's name) and three text reports, and the fleet table.
//!
//! Root only: skipped with the reason elsewhere, or when ansible-playbook,
//! sshd, ssh, ssh-keygen, ip or unshare are missing
//! (`contrib/ansible/ci-install.sh` installs them). With
//! `QB_REQUIRE_ROOT_TESTS` set (as `.ci/run` does as root) a skip is a
//! failure instead.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

const HOSTS: usize = 3;
const PREFIX: &str = "qbfleet-";
/// The banner of the benchmark play, printed once per batch of hosts.
const BENCH_PLAY: &str = "PLAY [Benchmark each host with quickbench]";

use crate::common_skip;

/// Returns from the test with the reason, or fails it under
/// `QB_REQUIRE_ROOT_TESTS` (tests/common_skip).
macro_rules! skip {
    ($($why:tt)*) => {{
        common_skip::skip(&format!($($why)*));
        return;
    }};
}

/// `tool` on PATH, or in the sbin directories a non-login PATH may lack.
fn find_tool(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/local/sbin", "/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

fn contrib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible")
}

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An ed25519 key pair without a passphrase: `path` and `path.pub`.
fn keygen(path: &Path) {
    let p = path.to_str().unwrap();
    run("ssh-keygen", &["-q", "-t", "ed25519", "-N", "", "-f", p]);
}

/// Kills every process in network namespace `ns`, then deletes it (which
/// takes its end of the veth pair, and so the pair, with it).
fn delete_netns(ns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            if let Ok(pid) = pid.parse::<i32>() {
                // SAFETY: kill has no memory preconditions; these are the
                // processes of a namespace this test made.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
    let _ = Command::new("ip").args(["netns", "del", ns]).status();
}

/// Namespaces left by an earlier run of this test that was killed before
/// its guard ran (their creator's pid is gone).
fn remove_stale_namespaces() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let creator = rest.split('-').next().unwrap_or("");
        if !Path::new("/proc").join(creator).exists() {
            delete_netns(name);
        }
    }
    // The outer ends of veths a killed run left (`qbf<pid>r<i>`): deleting
    // the namespace takes its inner end away only later, in the kernel's
    // own time, so they go here, by name, and the addresses are awaited.
    let Ok(out) = Command::new("ip").args(["-o", "link", "show"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(name) = line.split(':').nth(1).map(|n| n.trim()) else {
            continue;
        };
        let name = name.split('@').next().unwrap_or(name);
        let Some(rest) = name.strip_prefix("qbf") else {
            continue;
        };
        let pid: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !pid.is_empty() && !Path::new("/proc").join(&pid).exists() {
            let _ = Command::new("ip")
                .args(["link", "del", name])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// The addresses in use on this machine once no stale fleet's are left:
/// waits up to 5 s for a deleted namespace's veths to go.
fn addresses_once_free() -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let taken = run("ip", &["-o", "addr", "show"]);
        let stale = (1..=HOSTS).any(|i| taken.contains(&format!(" 10.231.{i}.")));
        if !stale || std::time::Instant::now() > deadline {
            return taken;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The three "hosts" and everything made for them, undone on drop.
struct Fleet {
    tmp: tempfile::TempDir,
    namespaces: Vec<String>,
    veths: Vec<String>,
    sshds: Vec<Child>,
    made_run_sshd: bool,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for c in &mut self.sshds {
            let _ = c.kill();
            let _ = c.wait();
        }
        for ns in &self.namespaces {
            delete_netns(ns);
        }
        for v in &self.veths {
            let _ = Command::new("ip")
                .args(["link", "del", v])
                .stderr(Stdio::null())
                .status();
        }
        if self.made_run_sshd {
            let _ = fs::remove_dir("/run/sshd");
        }
    }
}

/// The test's directories: keys, the hosts' temporary base (`remote`), the
/// benchmark directory, the fetched reports, Ansible's own files, the
/// asynchronous jobs' status files.
const DIRS: [&str; 6] = [
    "keys",
    "remote",
    "bench",
    "reports",
    "ansible-home",
    "async",
];

fn host_name(i: usize) -> String {
    format!("qb-fleet-{i}")
}

fn host_addr(i: usize) -> String {
    format!("10.231.{i}.2")
}

impl Fleet {
    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn start(sshd: &Path) -> Fleet {
        remove_stale_namespaces();
        let taken = addresses_once_free();
        for i in 1..=HOSTS {
            assert!(
                !taken.contains(&format!(" 10.231.{i}.")),
                "10.231.{i}.0/30 is already in use on this machine:\n{taken}"
            );
        }
        let mut f = Fleet {
            tmp: tempfile::tempdir().unwrap(),
            namespaces: Vec::new(),
            veths: Vec::new(),
            sshds: Vec::new(),
            made_run_sshd: false,
        };
        // sshd's privilege separation directory, fixed at build time.
        if !Path::new("/run/sshd").exists() {
            fs::create_dir_all("/run/sshd").unwrap();
            f.made_run_sshd = true;
        }
        for d in DIRS {
            fs::create_dir(f.path(d)).unwrap();
        }
        keygen(&f.path("keys/client"));
        fs::copy(f.path("keys/client.pub"), f.path("keys/authorized_keys")).unwrap();

        let pid = std::process::id();
        for i in 1..=HOSTS {
            let ns = format!("{PREFIX}{pid}-{i}");
            let (outer, inner) = (format!("qbf{pid}r{i}"), format!("qbf{pid}n{i}"));
            run("ip", &["netns", "add", &ns]);
            f.namespaces.push(ns.clone());
            run(
                "ip",
                &[
                    "link", "add", &outer, "type", "veth", "peer", "name", &inner,
                ],
            );
            f.veths.push(outer.clone());
            run("ip", &["link", "set", &inner, "netns", &ns]);
            run(
                "ip",
                &["addr", "add", &format!("10.231.{i}.1/30"), "dev", &outer],
            );
            run("ip", &["link", "set", &outer, "up"]);
            let addr = format!("{}/30", host_addr(i));
            run("ip", &["-n", &ns, "addr", "add", &addr, "dev", &inner]);
            run("ip", &["-n", &ns, "link", "set", &inner, "up"]);
            run("ip", &["-n", &ns, "link", "set", "lo", "up"]);

            let key = f.path(&format!("keys/host{i}"));
            keygen(&key);
            // The sessions' home is the test's: the root account's dotfiles
            // (a slow shell start-up, say) are no part of these hosts.
            let home = f.path(&format!("home{i}"));
            fs::create_dir(&home).unwrap();
            let cfg = f.path(&format!("sshd{i}.conf"));
            fs::write(
                &cfg,
                format!(
                    "ListenAddress {}\n\
                     HostKey {}\n\
                     AuthorizedKeysFile {}\n\
                     PidFile {}\n\
                     PermitRootLogin prohibit-password\n\
                     PasswordAuthentication no\n\
                     KbdInteractiveAuthentication no\n\
                     UsePAM no\n\
                     StrictModes no\n\
                     Subsystem sftp internal-sftp\n\
                     SetEnv HOME={}\n",
                    host_addr(i),
                    key.display(),
                    f.path("keys/authorized_keys").display(),
                    f.path(&format!("sshd{i}.pid")).display(),
                    home.display(),
                ),
            )
            .unwrap();
            let log = fs::File::create(f.path(&format!("sshd{i}.log"))).unwrap();
            // `ip netns exec`, `unshare` and `sh -c exec` all exec: the child
            // is sshd itself, in its own network and UTS namespaces.
            let child = Command::new("ip")
                .args(["netns", "exec", &ns, "unshare", "--uts", "sh", "-c"])
                .arg(format!(
                    "echo {} > /proc/sys/kernel/hostname && exec {} -D -e -f {}",
                    host_name(i),
                    sshd.display(),
                    cfg.display()
                ))
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            f.sshds.push(child);
        }
        for i in 1..=HOSTS {
            f.wait_for_sshd(i);
        }
        f
    }

    fn wait_for_sshd(&mut self, i: usize) {
        let addr = format!("{}:22", host_addr(i)).parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return;
            }
            if let Ok(Some(st)) = self.sshds[i - 1].try_wait() {
                panic!(
                    "sshd {i} exited ({st}): {}",
                    fs::read_to_string(self.path(&format!("sshd{i}.log"))).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "sshd {i} does not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The inventory: every host reached over SSH as root with the test's
    /// key; every path the playbook and Ansible write on the "hosts" (which
    /// share this machine's filesystem) under the test's temporary
    /// directory. `overrides` are extra host variables, per host.
    fn write_inventory(&self, overrides: &[(usize, &str)]) -> PathBuf {
        let t = self.tmp.path().display();
        let mut y = String::from("all:\n  hosts:\n");
        for i in 1..=HOSTS {
            y += &format!(
                "    {}:\n      ansible_host: {}\n",
                host_name(i),
                host_addr(i)
            );
            for (_, vars) in overrides.iter().filter(|(h, _)| *h == i) {
                y += &format!("      {vars}\n");
            }
        }
        y += &format!(
            "  vars:\n\
             \x20   ansible_user: root\n\
             \x20   ansible_ssh_private_key_file: {t}/keys/client\n\
             \x20   ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null\n\
             \x20   ansible_python_interpreter: /usr/bin/python3\n\
             \x20   ansible_remote_tmp: {t}/ansible-remote\n\
             \x20   ansible_async_dir: {t}/async\n\
             \x20   quickbench_binary: {bin}\n\
             \x20   quickbench_delay: 0.2\n\
             \x20   quickbench_dir: {t}/bench\n\
             \x20   quickbench_extra_args: --only cpu,memory --repeat 2\n\
             \x20   quickbench_remote_tmp: {t}/remote\n\
             \x20   quickbench_reports_dir: {t}/reports\n\
             \x20   quickbench_poll: 1\n",
            bin = env!("CARGO_BIN_EXE_quickbench"),
        );
        let p = self.path("inventory.yml");
        fs::write(&p, y).unwrap();
        p
    }

    /// Runs the playbook from contrib/ansible as a user would (its
    /// ansible.cfg applies); returns the exit code and all it printed.
    fn playbook(&self, ansible_playbook: &Path, args: &[&str]) -> (i32, String) {
        let started = Instant::now();
        let out = Command::new(ansible_playbook)
            .current_dir(contrib())
            .args([
                "-i",
                self.path("inventory.yml").to_str().unwrap(),
                "fleet.yml",
            ])
            .args(args)
            .env_remove("ANSIBLE_CONFIG")
            .env("ANSIBLE_HOME", self.path("ansible-home"))
            .env("ANSIBLE_LOCAL_TEMP", self.path("ansible-home/tmp"))
            .env("ANSIBLE_STDOUT_CALLBACK", "default")
            .env("ANSIBLE_PIPELINING", "1")
            .env("ANSIBLE_NOCOLOR", "1")
            .env("ANSIBLE_FORCE_COLOR", "0")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        fs::write(self.path("last-playbook.log"), &text).unwrap();
        eprintln!(
            "ansible-playbook {args:?}: exit {:?} in {:.1} s",
            out.status.code(),
            started.elapsed().as_secs_f64()
        );
        (out.status.code().unwrap_or(-1), text)
    }

    /// Nothing left on the "hosts": no temporary directory (so no binary),
    /// no asynchronous job file, no quickbench process started from there.
    fn assert_hosts_clean(&self, log: &str) {
        for d in ["remote", "async", "bench"] {
            let left: Vec<_> = fs::read_dir(self.path(d))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            assert!(left.is_empty(), "left on the hosts: {left:?}\n{log}");
        }
        let remote = self.path("remote");
        for e in fs::read_dir("/proc").unwrap().flatten() {
            if let Ok(exe) = fs::read_link(e.path().join("exe")) {
                assert!(
                    !exe.starts_with(&remote),
                    "still running: pid {:?} {}\n{log}",
                    e.file_name(),
                    exe.display()
                );
            }
        }
    }

    fn report(&self, i: usize, ext: &str) -> PathBuf {
        self.path(&format!("reports/{}.{ext}", host_name(i)))
    }

    fn mtime(&self, i: usize, ext: &str) -> SystemTime {
        fs::metadata(self.report(i, ext))
            .unwrap()
            .modified()
            .unwrap()
    }
}

fn validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/report.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema itself is valid")
}

/// `log` with every run of whitespace made one space: Ansible folds long
/// messages over several lines.
fn flat(log: &str) -> String {
    log.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The host lines of `PLAY RECAP` that ran: `name : ok=N changed=N ...`.
fn recap_line<'a>(log: &'a str, host: &str) -> &'a str {
    let recap = log.rsplit("PLAY RECAP").next().unwrap_or("");
    recap
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{host} ")))
        .unwrap_or_else(|| panic!("{host} is not in the recap:\n{log}"))
}

/// What the playbook printed between the fleet table task's banner and the
/// next banner.
fn fleet_table(log: &str) -> &str {
    let (_, after) = log
        .split_once("TASK [Print the fleet table]")
        .unwrap_or_else(|| panic!("the fleet table task did not run:\n{log}"));
    after.split("TASK [").next().unwrap()
}

#[test]
fn the_playbook_benchmarks_three_hosts_over_ssh() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip!("not root (network namespaces and sshd)");
    }
    let mut tools = Vec::new();
    for t in [
        "ansible-playbook",
        "sshd",
        "ssh",
        "ssh-keygen",
        "ip",
        "unshare",
    ] {
        match find_tool(t) {
            Some(p) => tools.push(p),
            None => skip!("{t} is not installed (contrib/ansible/ci-install.sh installs it)"),
        }
    }
    let (ansible_playbook, sshd) = (&tools[0], &tools[1]);
    let started = Instant::now();
    let fleet = Fleet::start(sshd);

    // 1. The plan only, all hosts at once: every host's plan printed,
    //    nothing measured or fetched, nothing left.
    fleet.write_inventory(&[]);
    let (code, log) = fleet.playbook(
        ansible_playbook,
        &["--tags", "plan", "-e", "quickbench_serial=0"],
    );
    assert_eq!(code, 0, "{log}");
    assert_eq!(log.matches(BENCH_PLAY).count(), 1, "{log}");
    assert_eq!(log.matches("[ Plan ]").count(), HOSTS, "{log}");
    assert!(!log.contains("TASK [Run quickbench (asynchronous"), "{log}");
    assert_eq!(fs::read_dir(fleet.path("reports")).unwrap().count(), 0);
    fleet.assert_hosts_clean(&log);

    // 2. Two hosts fail, one before anything runs, one midway; the third
    //    runs after them. Host 1 cannot be reached (nothing listens on the
    //    port given); host 2's run (5 s steps) outlives its async timeout,
    //    forced to 2 s. Host 3 is not affected; hosts 1 and 2 are left clean
    //    and without reports; the play says they failed.
    fleet.write_inventory(&[
        (1, "ansible_port: 2222"),
        (2, "quickbench_delay: 5"),
        (2, "quickbench_timeout: 2"),
    ]);
    let (code, log) = fleet.playbook(ansible_playbook, &[]);
    assert_ne!(code, 0, "{log}");
    // serial: 1 by default, one batch per host.
    assert_eq!(log.matches(BENCH_PLAY).count(), HOSTS, "{log}");
    let flat_log = flat(&log);
    assert!(
        flat_log.contains("qb-fleet-1 FAILED (Check that the host was reached: unreachable:"),
        "{log}"
    );
    assert!(
        flat_log.contains("qb-fleet-2 FAILED (Run quickbench"),
        "{log}"
    );
    for i in [1, 2] {
        assert!(
            recap_line(&log, &host_name(i)).contains("failed=1"),
            "{log}"
        );
        for ext in ["json", "txt", "json.part"] {
            assert!(!fleet.report(i, ext).exists(), "{ext} of host {i}\n{log}");
        }
    }
    assert!(recap_line(&log, "qb-fleet-3").contains("failed=0"), "{log}");
    assert!(fleet.report(3, "json").is_file(), "{log}");
    assert!(fleet.report(3, "txt").is_file(), "{log}");
    // One report: no table, and the play says why.
    assert!(flat_log.contains("1 JSON report(s) in"), "{log}");
    fleet.assert_hosts_clean(&log);
    let kept = (fleet.mtime(3, "json"), fleet.mtime(3, "txt"));

    // 3. The rerun completes hosts 1 and 2 only.
    fleet.write_inventory(&[]);
    let (code, log) = fleet.playbook(ansible_playbook, &[]);
    assert_eq!(code, 0, "{log}");
    let flat_log = flat(&log);
    assert!(flat_log.contains("qb-fleet-3: skipped, "), "{log}");
    assert_eq!(
        (fleet.mtime(3, "json"), fleet.mtime(3, "txt")),
        kept,
        "host 3 ran again\n{log}"
    );
    for i in [1, 2] {
        assert!(
            !flat_log.contains(&format!("{}: skipped", host_name(i))),
            "{log}"
        );
        assert!(
            flat_log.contains(&format!(
                "{}: {} and {} written",
                host_name(i),
                fleet.report(i, "json").display(),
                fleet.report(i, "txt").display()
            )),
            "{log}"
        );
    }
    fleet.assert_hosts_clean(&log);

    // Three valid JSON reports, each from its own host, three text reports.
    let v = validator();
    for i in 1..=HOSTS {
        let doc: Value =
            serde_json::from_str(&fs::read_to_string(fleet.report(i, "json")).unwrap())
                .unwrap_or_else(|e| panic!("report {i}: {e}"));
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "report {i}: {errors:#?}");
        assert_eq!(doc["schema_version"], 1);
        assert_eq!(doc["hostname"], host_name(i).as_str());
        assert_eq!(doc["dry_run"], false);
        // The extra arguments reach the run (and its plan's estimate,
        // which sets the timeout): two trials of every step.
        assert_eq!(doc["repeat"], 2, "report {i}");
        for step in doc["cpu_loop"].as_array().unwrap() {
            assert_eq!(step["trials"].as_array().unwrap().len(), 2, "report {i}");
        }
        let text = fs::read_to_string(fleet.report(i, "txt")).unwrap();
        assert!(text.contains("[ Memory ]"), "text report {i}:\n{text}");
        assert!(
            text.contains(" \u{d7} 2 trials, "),
            "text report {i}:\n{text}"
        );
    }
    let names: Vec<_> = fs::read_dir(fleet.path("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2 * HOSTS + 1, "{names:?}"); // + fleet.txt

    // The fleet table, over the three reports, printed and saved.
    let table = fleet_table(&log);
    let saved = fs::read_to_string(fleet.path("reports/fleet.txt")).unwrap();
    for i in 1..=HOSTS {
        assert!(table.contains(&host_name(i)), "{table}\n{log}");
        assert!(saved.contains(&host_name(i)), "{saved}");
    }

    eprintln!(
        "ansible fleet test: {:.1} s in all",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn the_playbook_passes_syntax_check_and_lint() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let Some(ansible_playbook) = find_tool("ansible-playbook") else {
        skip!("ansible-playbook is not installed (contrib/ansible/ci-install.sh installs it)");
    };
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(&ansible_playbook)
        .current_dir(contrib())
        .args(["--syntax-check", "-i", "inventory.example.ini", "fleet.yml"])
        .env_remove("ANSIBLE_CONFIG")
        .env("ANSIBLE_HOME", home.path())
        .env("ANSIBLE_LOCAL_TEMP", home.path().join("tmp"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    // ansible-lint may not be installable everywhere: its absence is a skip
    // of this part only, whatever QB_REQUIRE_ROOT_TESTS says.
    let Some(lint) = find_tool("ansible-lint") else {
        eprintln!("skipping ansible-lint: it is not installed");
        return;
    };
    let out = Command::new(lint)
        .current_dir(contrib())
        .args(["--offline", "--nocolor", "fleet.yml", "defaults.yml"])
        .env_remove("ANSIBLE_CONFIG")
        .env("ANSIBLE_HOME", home.path())
        .env("ANSIBLE_LOCAL_TEMP", home.path().join("tmp"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ansible-lint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
