//! The real binary in a real terminal (tmux 120x40), used as a person would:
//! change the size, run, watch both transports, read the table, change
//! another value, run again, look at the history, quit, and check that the
//! terminal was restored. Against the built-in emulator.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
    _config: tempfile::TempDir,
}

impl Tmux {
    fn start() -> Self {
        let config = tempfile::tempdir().unwrap();
        let socket = format!("gcs-speed-tui-e2e-{}", std::process::id());
        let tmux = Tmux { socket, _config: config };
        let shell = format!(
            "env XDG_CONFIG_HOME={} HOME={} PS1='$ ' bash --norc --noprofile",
            tmux._config.path().display(),
            tmux._config.path().display()
        );
        tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", &shell]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux is installed (./scripts/test installs it)");
        assert!(output.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.run(&["send-keys", "-t", "e2e", key]);
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "e2e", "-l", text]);
        std::thread::sleep(Duration::from_millis(60));
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-t", "e2e", "-p"])
    }

    fn wait_for(&self, what: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            assert!(Instant::now() < deadline, "'{what}' did not appear within {timeout:?}; the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").output();
    }
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gcs-speed-tui"))
}

#[test]
fn a_person_runs_compares_and_quits() {
    let tmux = Tmux::start();
    tmux.wait_for("$", Duration::from_secs(5));
    tmux.type_text(&format!("{} --size 8MiB --iterations 2; echo EXIT=$?", binary().display()));
    tmux.keys(&["Enter"]);
    tmux.wait_for("ready", Duration::from_secs(10));

    // The size field (fifth, below Target, Bucket, Transports and Workload) to 384MiB: large enough to watch both transports move.
    tmux.keys(&["Down", "Down", "Down", "Down", "Enter", "C-u"]);
    tmux.type_text("384MiB");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Object size       384MiB", Duration::from_secs(5));
    assert!(screen.contains("target: built-in emulator (loopback, not GCS)"), "{screen}");

    tmux.keys(&["r"]);
    let (mut saw_json, mut saw_grpc) = (false, false);
    let deadline = Instant::now() + Duration::from_secs(120);
    let results = loop {
        let screen = tmux.screen();
        saw_json |= screen.contains("http-json uploading");
        saw_grpc |= screen.contains("grpc uploading");
        if screen.contains("cleanup: deleted") {
            break screen;
        }
        assert!(Instant::now() < deadline, "the run did not finish:\n{screen}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(saw_json && saw_grpc, "both transports were seen uploading (json {saw_json}, grpc {saw_grpc})");
    assert!(results.contains("Transport Runs Bytes/run"), "{results}");
    assert!(results.lines().any(|l| l.contains("│http-json 2    384 MiB")), "{results}");
    assert!(results.contains("cleanup: deleted 4, left 0"), "{results}");
    assert!(results.contains("no verdict") && results.contains("are too few"), "two pairs name no winner: {results}");

    // Another value, another run: iterations (sixth field) to 3.
    tmux.keys(&["Down", "Enter", "C-u"]);
    tmux.type_text("3");
    tmux.keys(&["Enter", "r"]);
    let second = tmux.wait_for("done · 2 runs this session", Duration::from_secs(120));
    assert!(second.lines().any(|l| l.contains("│grpc      3    384 MiB")), "{second}");

    tmux.keys(&["h"]);
    let history = tmux.wait_for("history", Duration::from_secs(5));
    assert!(
        history.contains("#1 ") && history.contains("384MiB x2 c1") && history.contains("384MiB x3 c1"),
        "{history}"
    );
    tmux.keys(&["h", "q"]);

    let after = tmux.wait_for("EXIT=0", Duration::from_secs(10));
    assert!(!after.contains("┌ options"), "the app's screen is gone:\n{after}");
    assert_eq!(tmux.run(&["display", "-p", "-t", "e2e", "#{alternate_on}"]).trim(), "0", "left the alternate screen");
    assert_eq!(tmux.run(&["display", "-p", "-t", "e2e", "#{cursor_flag}"]).trim(), "1", "the cursor is visible again");
    let remembered = std::fs::read_to_string(tmux._config.path().join("gcs-speed-tui/form.json")).unwrap();
    assert!(
        remembered.contains("\"size\": \"384MiB\"") && remembered.contains("\"iterations\": \"3\""),
        "{remembered}"
    );
}

#[test]
fn a_merged_report_opens_with_its_hosts_and_fleet_rows() {
    let dir = tempfile::tempdir().unwrap();
    // Two hosts begun together (each with a built-in emulator of its own), merged.
    let runs: Vec<_> = ["host-a", "host-b"]
        .into_iter()
        .map(|host| {
            let output = dir.path().join(format!("{host}.json"));
            let args: Vec<String> =
                ["run", "--size", "1MiB", "--iterations", "3", "--format", "json", "--start-in", "2s"]
                    .iter()
                    .map(|s| s.to_string())
                    .chain(["--host-label".into(), host.into(), "--output".into(), output.display().to_string()])
                    .collect();
            std::thread::spawn(move || Command::new(binary()).args(args).output().unwrap())
        })
        .collect();
    for run in runs {
        let output = run.join().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let fleet = dir.path().join("fleet.json");
    let merged = Command::new(binary())
        .args(["merge", "--format", "json", "--output"])
        .arg(&fleet)
        .arg(dir.path().join("host-a.json"))
        .arg(dir.path().join("host-b.json"))
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert!(String::from_utf8_lossy(&merged.stderr).contains("a built-in emulator of their own"), "said, not refused");
    // The merged report keeps the caveat: a reader of fleet.json alone learns it.
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&fleet).unwrap()).unwrap();
    let caveats = report["fleet"]["caveats"].as_array().expect("the fleet's caveats");
    assert!(caveats.iter().any(|c| c.as_str().unwrap().contains("a built-in emulator of their own")), "{caveats:?}");

    let tmux = Tmux::start();
    tmux.wait_for("$", Duration::from_secs(5));
    tmux.type_text(&format!("{} --open {}; echo EXIT=$?", binary().display(), fleet.display()));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("results · run fleet-", Duration::from_secs(10));
    for row in ["│host-a http-json", "│host-b grpc", "│fleet http-json", "│fleet grpc"] {
        assert!(screen.contains(row), "{row}:\n{screen}");
    }
    assert!(screen.contains("fleet of 2: common window"), "{screen}");
    // A small window hides the last lines; ] scrolls to them.
    tmux.run(&["resize-window", "-t", "e2e", "-x", "100", "-y", "30"]);
    let small = tmux.wait_for("] scrolls down", Duration::from_secs(5));
    assert!(!small.contains("cleanup: deleted"), "{small}");
    tmux.keys(&["]", "]", "]", "]", "]", "]"]);
    let scrolled = tmux.wait_for("[ scrolls up", Duration::from_secs(5));
    assert!(scrolled.contains("cleanup: deleted"), "the last line is in view:\n{scrolled}");
    tmux.keys(&["h"]);
    let history = tmux.wait_for("history", Duration::from_secs(5));
    assert!(history.contains("fleet of 2 · emulator"), "{history}");
    tmux.keys(&["h", "q"]);
    tmux.wait_for("EXIT=0", Duration::from_secs(10));
}

#[test]
fn a_sweep_of_size_and_concurrency_runs_from_the_form_and_is_drawn_at_100x30() {
    let tmux = Tmux::start();
    tmux.run(&["resize-window", "-t", "e2e", "-x", "100", "-y", "30"]);
    tmux.wait_for("$", Duration::from_secs(5));
    tmux.type_text(&format!("{} --iterations 3; echo EXIT=$?", binary().display()));
    tmux.keys(&["Enter"]);
    tmux.wait_for("ready", Duration::from_secs(10));
    // Past the 11 essential fields to "▸ advanced", open it, then down to Sweep (its ninth field).
    tmux.keys(&["End"]);
    let mut keys = vec!["Home"];
    keys.extend(["Down"; 11]);
    keys.push("Enter");
    keys.extend(["Down"; 9]);
    keys.extend(["Enter", "C-u"]);
    tmux.keys(&keys);
    tmux.type_text("size=64KiB,1MiB; concurrency=1,4");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Sweep             size=64KiB,1MiB", Duration::from_secs(5));
    tmux.keys(&["r"]);
    let done = tmux.wait_for("sweep done: 4 of 4 points", Duration::from_secs(180));
    assert!(done.contains("sweep of size x concurrency · 4 of 4 points"), "{done}");
    assert!(done.contains("done · 4 runs this session"), "each point is a run: {done}");
    // The heatmap: sizes across in the order given, concurrencies down, a ratio and its mark in every cell.
    let header = done.lines().find(|l| l.contains("concurrency  64KiB")).unwrap_or_else(|| panic!("{done}"));
    assert!(header.find("64KiB") < header.find("1MiB"), "{header}");
    let is_cell = |word: &&str| word.ends_with(['▲', '▼', '?']) && word.contains('x');
    // The list of points begins on the same lines, right of the heatmap: only the columns before it count.
    let list_at = header.find(" size concurrency").unwrap_or_else(|| panic!("{header}"));
    let list_column = header[..list_at].chars().count();
    for concurrency in ["1", "4"] {
        let row =
            done.lines().find(|l| l.starts_with(&format!("│{concurrency:<11} "))).unwrap_or_else(|| panic!("{done}"));
        let heatmap: String = row.chars().take(list_column).collect();
        let cells: Vec<&str> = heatmap.split_whitespace().filter(is_cell).collect();
        assert_eq!(cells.len(), 2, "a cell for 64KiB and one for 1MiB: {heatmap}");
    }
    // Each point's ratio in the list, with its interval or why there is none.
    let listed: Vec<&str> =
        done.lines().filter(|l| ["64KiB 1 ", "64KiB 4 ", "1MiB 1 ", "1MiB 4 "].iter().any(|p| l.contains(p))).collect();
    assert_eq!(listed.len(), 4, "{done}");
    for line in listed {
        assert!(line.contains(" to ") || line.contains("too wide to read") || line.contains("none"), "{line}");
    }
    tmux.keys(&["s"]);
    let table = tmux.wait_for("Transport Runs", Duration::from_secs(5));
    assert!(table.contains("results · run"), "{table}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXIT=0", Duration::from_secs(10));
}
