//! A real etcd (Debian's etcd-server, installed by ./scripts/test) on
//! 127.0.0.1 with free ports and a temporary data dir, stopped on drop.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Etcd {
    child: Child,
    pub dir: tempfile::TempDir,
    pub url: String,
    /// Flags etcdctl needs to reach it (TLS files when it has TLS).
    ctl_flags: Vec<String>,
}

/// Certificates made for one test: a CA, the server's (for 127.0.0.1) and a client's.
pub struct Certificates {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Etcd {
    pub fn start() -> Etcd {
        Self::start_with(None)
    }

    /// With certificates: https only, and client certificates required.
    pub fn start_with(tls: Option<&Certificates>) -> Etcd {
        Self::launch(tls, false, &[])
    }

    /// As a real deployment runs it: every write fsynced (for benchmarks).
    pub fn start_durable() -> Etcd {
        Self::launch(None, true, &[])
    }

    /// With etcd flags of the test's own (`--max-request-bytes 2048`).
    pub fn start_with_flags(flags: &[&str]) -> Etcd {
        Self::launch(None, false, flags)
    }

    fn launch(tls: Option<&Certificates>, fsync: bool, flags: &[&str]) -> Etcd {
        let dir = tempfile::tempdir().unwrap();
        let (client, peer) = (free_port(), free_port());
        let scheme = if tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let mut command = Command::new("etcd");
        command
            .args(["--data-dir", dir.path().join("data").to_str().unwrap()])
            .args(["--listen-client-urls", &url, "--advertise-client-urls", &url])
            .args(["--listen-peer-urls", &peer_url, "--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("default={peer_url}")])
            .args(flags)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("etcd.log")).unwrap());
        if !fsync {
            // Tests only: a real benchmark keeps fsync (see README).
            command.arg("--unsafe-no-fsync");
        }
        let mut ctl_flags = vec![format!("--endpoints={url}")];
        if let Some(tls) = tls {
            command
                .args([
                    "--cert-file",
                    tls.server_cert.to_str().unwrap(),
                    "--key-file",
                    tls.server_key.to_str().unwrap(),
                ])
                .args(["--client-cert-auth", "--trusted-ca-file", tls.ca.to_str().unwrap()]);
            ctl_flags.extend([
                format!("--cacert={}", tls.ca.display()),
                format!("--cert={}", tls.client_cert.display()),
                format!("--key={}", tls.client_key.display()),
            ]);
        }
        let child = command.spawn().expect("etcd is installed (./scripts/test installs etcd-server)");
        let etcd = Etcd { child, dir, url, ctl_flags };
        etcd.wait_until_ready();
        etcd
    }

    fn wait_until_ready(&self) {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if self.ctl(&["endpoint", "health"]).status.success() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("etcd did not start: {}", std::fs::read_to_string(self.dir.path().join("etcd.log")).unwrap_or_default());
    }

    /// etcdctl (v3 API) against this etcd.
    pub fn ctl(&self, args: &[&str]) -> std::process::Output {
        Command::new("etcdctl").env("ETCDCTL_API", "3").args(&self.ctl_flags).args(args).output().unwrap()
    }

    /// etcdctl that must succeed; its stdout.
    pub fn ctl_ok(&self, args: &[&str]) -> String {
        let output = self.ctl(args);
        assert!(output.status.success(), "etcdctl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Moves every etcd thread onto CPU `cpu` (`taskset`, util-linux), so
    /// that a client kept off it cannot take the server's CPU.
    pub fn pin_to_cpu(&self, cpu: usize) {
        let pid = self.child.id().to_string();
        let pinned = Command::new("taskset").args(["-a", "-p", "-c", &cpu.to_string(), &pid]).output().unwrap();
        assert!(pinned.status.success(), "taskset: {}", String::from_utf8_lossy(&pinned.stderr));
    }

    /// The store's revision: every put (and every txn that writes) adds one.
    pub fn revision(&self) -> u64 {
        let json: serde_json::Value = serde_json::from_str(&self.ctl_ok(&["get", "-w", "json", "x"])).unwrap();
        json["header"]["revision"].as_u64().expect("a revision")
    }

    /// Keys under `prefix` (as root when auth is on).
    pub fn count(&self, prefix: &str, user: Option<&str>) -> u64 {
        // etcdctl 3.4 has no --count-only; a range's count is the total whatever its limit.
        let mut args = vec!["get", prefix, "--prefix", "--keys-only", "--limit=1", "-w", "json"];
        let flag;
        if let Some(user) = user {
            flag = format!("--user={user}");
            args.push(&flag);
        }
        let json: serde_json::Value = serde_json::from_str(&self.ctl_ok(&args)).unwrap();
        json["count"].as_u64().unwrap_or(0)
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A CA, and server and client certificates signed by it, made with openssl.
pub fn make_certificates(dir: &Path) -> Certificates {
    let path = |name: &str| dir.join(name);
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl is installed");
        assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    openssl(
        &["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
            .iter()
            .chain(&["-subj", "/CN=test-ca", "-keyout", "ca.key", "-out", "ca.pem"])
            .copied()
            .collect::<Vec<_>>(),
    );
    // clientAuth too: etcd's gateway dials its own gRPC port with the server's
    // certificate (kubeadm's etcd certificates have both for that reason).
    std::fs::write(path("server.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n")
        .unwrap();
    std::fs::write(path("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
    for who in ["server", "client"] {
        let (key, csr, cert, ext) =
            (format!("{who}.key"), format!("{who}.csr"), format!("{who}.pem"), format!("{who}.ext"));
        openssl(
            &["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
                .iter()
                .chain(&["-subj", &format!("/CN={who}"), "-keyout", &key, "-out", &csr])
                .copied()
                .collect::<Vec<_>>(),
        );
        openssl(
            &["x509", "-req", "-in", &csr, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2"]
                .iter()
                .chain(&["-extfile", &ext, "-out", &cert])
                .copied()
                .collect::<Vec<_>>(),
        );
    }
    Certificates {
        ca: path("ca.pem"),
        server_cert: path("server.pem"),
        server_key: path("server.key"),
        client_cert: path("client.pem"),
        client_key: path("client.key"),
    }
}
