//! `gcs-speed-tui emulator`: the built-in emulator as a server of its own,
//! until Ctrl-C.

use crate::usage_error;
use gcs_speed_tui::cli::EmulatorArgs;
use gcs_speed_tui::emulator::authority::AuthOptions;
use gcs_speed_tui::emulator::tls::TlsMode;
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions, ReadChecksums, UploadAnswers, faults};
use gcs_speed_tui::signals::{self, Interrupt};
use gcs_speed_tui::units;
use std::io::Write;
use std::process::ExitCode;

pub async fn emulator(args: EmulatorArgs) -> ExitCode {
    // Listened for before anything is made, so that a Ctrl-C straight after
    // start still stops it the orderly way (its CA file removed).
    let mut interrupts = signals::interrupts();
    let options = match emulator_options(&args) {
        Ok(options) => options,
        Err(message) => return usage_error(message),
    };
    let settings = emulator_settings(&args);
    let options_tls = options.tls.is_some();
    let emulator = match Emulator::start(options).await {
        Ok(emulator) => emulator,
        Err(error) => return usage_error(format!("cannot start the emulator: {error}")),
    };
    let grpc = if options_tls { emulator.grpc_url() } else { emulator.grpc_addr().to_string() };
    println!("json={} grpc={grpc}", emulator.json_url());
    let _ = std::io::stdout().flush();
    // Held until the emulator stops: a file made for this process is removed then.
    let ca_file = match emulator.ca_pem().map(|pem| write_ca(pem, args.ca_out.as_deref())).transpose() {
        Ok(file) => file,
        Err(message) => return usage_error(message),
    };
    let trust = ca_file.as_ref().map(|file| file.path().to_path_buf());
    if let Some(path) = &trust {
        engine::say_on_stderr!("TLS: the emulator's CA is in {} (clients trust it with --ca-cert)", path.display());
    }
    if !args.host.is_loopback() {
        engine::say_on_stderr!(
            "warning: bound to {}: anyone who can reach this address can use the emulator",
            args.host
        );
    }
    say_ready(&args, &emulator.json_url(), &grpc, trust.as_deref());
    engine::say_on_stderr!("  {settings}");
    if let Some(metadata) = emulator.metadata_addr() {
        engine::say_on_stderr!(
            "  metadata server: GCE_METADATA_HOST={metadata}; token endpoint {}/token",
            emulator.json_url()
        );
    }
    let signal = interrupts.recv().await;
    emulator.shutdown();
    drop(ca_file);
    say_stopped(&emulator);
    match signal {
        Some(Interrupt::Int) | None => ExitCode::SUCCESS,
        Some(other) => ExitCode::from(other.exit_code()),
    }
}

/// The flags as the emulator's options, or the sentence saying which is wrong.
fn emulator_options(args: &EmulatorArgs) -> Result<EmulatorOptions, String> {
    let latency = args.latency.as_deref().map(units::parse_duration).transpose();
    let latency = latency.map_err(|error| format!("--latency: {error}"))?.unwrap_or_default();
    let bandwidth = args.bandwidth.as_deref().map(units::parse_rate).transpose();
    let bandwidth = bandwidth.map_err(|error| format!("--bandwidth: {error}"))?;
    let window = match units::parse_size(&args.window) {
        Ok(size) if (65_535..=(1u64 << 31) - 1).contains(&size) => size as u32,
        _ => return Err(format!("--window: '{}' must be a size from 64KiB to 2GiB, like 8MiB", args.window)),
    };
    let max_frame = match units::parse_size(&args.frame_size) {
        Ok(size) if (16_384..(1u64 << 24)).contains(&size) => size as u32,
        _ => {
            return Err(format!(
                "--frame-size: '{}' must be a size from 16KiB to 16777215B (HTTP/2's limits), like 1MiB",
                args.frame_size
            ));
        }
    };
    let rules = args.faults.iter().map(|spec| faults::parse_rule(spec).map_err(|error| format!("--fault: {error}")));
    let rules = rules.collect::<Result<Vec<_>, _>>()?;
    if args.http_port != 0 && args.http_port == args.grpc_port {
        return Err(format!(
            "--http-port and --grpc-port are both {}: the JSON API and gRPC need a port each",
            args.http_port
        ));
    }
    Ok(EmulatorOptions {
        host: args.host,
        http_port: args.http_port,
        grpc_port: args.grpc_port,
        buckets: args.buckets.clone(),
        retain: args.retain,
        latency,
        bandwidth,
        faults: rules,
        stream_window: window,
        max_frame,
        read_checksums: args.read_checksums,
        upload_answers: args.upload_answers,
        auth: auth_options(args)?,
        tls: match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Some(TlsMode::Given { cert: cert.clone(), key: key.clone() }),
            _ => args.tls.then_some(TlsMode::Generated),
        },
        ..EmulatorOptions::default()
    })
}

/// What the emulator did while it ran, said as it stops.
fn say_stopped(emulator: &Emulator) {
    let store = emulator.store();
    let created = store.objects_created.load(std::sync::atomic::Ordering::Relaxed);
    let stored = store.bytes_stored.load(std::sync::atomic::Ordering::Relaxed);
    let injected = emulator.faults().injected.load(std::sync::atomic::Ordering::Relaxed);
    engine::say_on_stderr!(
        "emulator stopped: {created} object(s) created ({}), {} still stored, {injected} fault(s) injected",
        units::format_size(stored),
        store.object_count()
    );
}

/// The hint on stderr: a `run` line that works as printed (its bucket, its
/// CA), or, when tokens are required, how to get one.
fn say_ready(args: &EmulatorArgs, json: &str, grpc: &str, trust: Option<&std::path::Path>) {
    if args.require_auth {
        // Tokens come from a credential file it trusts, and the token
        // libraries read the CA from SSL_CERT_FILE (not --ca-cert).
        let trust = trust.map(|p| format!("SSL_CERT_FILE={} ", p.display())).unwrap_or_default();
        let bucket = args.buckets.first().map_or("BUCKET", String::as_str);
        engine::say_on_stderr!(
            "GCS emulator ready (Ctrl-C to stop); tokens required: point a credential file's token URL at {json}/token and --trust it.\n  \
             {trust}gcs-speed-tui run --endpoint {json} --grpc-endpoint {grpc} --bucket {bucket} --auth gcs --credentials KEY.json"
        );
    } else {
        let trust = trust.map(|p| format!(" --ca-cert {}", p.display())).unwrap_or_default();
        // The bucket it was given, so the hint runs as printed.
        let bucket = args.buckets.first().map(|b| format!(" --bucket {b}")).unwrap_or_default();
        let new_bucket = r#"-d '{"name":"my-bucket"}'"#;
        let lines = [
            "GCS emulator ready (Ctrl-C to stop).".to_string(),
            format!("gcs-speed-tui run --endpoint {json} --grpc-endpoint {grpc}{trust}{bucket}"),
            format!("STORAGE_EMULATOR_HOST={json} STORAGE_EMULATOR_HOST_GRPC={grpc} gcs-speed-tui run{bucket}"),
            format!("curl -X POST '{json}/storage/v1/b?project=p' -H 'content-type: application/json' {new_bucket}"),
        ];
        engine::say_on_stderr!("{}", lines.join("\n  "));
    }
}

/// Where the CA the emulator made is kept while it runs.
enum CaFile {
    /// `--ca-out`: the user's own path, kept after the emulator stops.
    Asked(std::path::PathBuf),
    /// A file of this process's own in the temp directory (created
    /// exclusively, so another emulator or user cannot share or swap it),
    /// removed when dropped.
    Made(tempfile::TempPath),
}

impl CaFile {
    fn path(&self) -> &std::path::Path {
        match self {
            CaFile::Asked(path) => path,
            CaFile::Made(path) => path,
        }
    }
}

fn write_ca(pem: &str, asked: Option<&std::path::Path>) -> Result<CaFile, String> {
    let cannot = |path: &std::path::Path, error: std::io::Error| {
        format!("cannot write the CA to {}: {error}; choose another --ca-out", path.display())
    };
    if let Some(path) = asked {
        return std::fs::write(path, pem).map(|()| CaFile::Asked(path.to_path_buf())).map_err(|e| cannot(path, e));
    }
    let mut file = tempfile::Builder::new()
        .prefix("gcs-speed-tui-emulator-ca-")
        .suffix(".pem")
        .tempfile()
        .map_err(|e| cannot(&std::env::temp_dir(), e))?;
    file.write_all(pem.as_bytes()).map_err(|e| cannot(file.path(), e))?;
    Ok(CaFile::Made(file.into_temp_path()))
}

/// What this emulator does to traffic, said at start so a shaped or faulty
/// server is never mistaken for a plain one.
fn emulator_settings(args: &EmulatorArgs) -> String {
    let mut parts = vec![
        format!("latency {}", args.latency.as_deref().unwrap_or("none")),
        format!("bandwidth {}", args.bandwidth.as_deref().unwrap_or("unlimited")),
        format!("window {}", args.window),
        format!("frames up to {}", args.frame_size),
    ];
    parts.push(if args.faults.is_empty() { "no faults".into() } else { format!("faults {}", args.faults.join(", ")) });
    parts.push(if args.retain { "bytes kept (--retain)".into() } else { "bytes checked, not kept".into() });
    if args.require_auth {
        parts.push(format!("tokens required (ttl {}, {} trusted)", args.token_ttl, args.trusted.len()));
    }
    if !args.denied.is_empty() {
        parts.push(format!("denied {}", args.denied.join(", ")));
    }
    match args.read_checksums {
        ReadChecksums::Full => {}
        ReadChecksums::Metadata => parts.push("reads' checksums only in their metadata".into()),
        ReadChecksums::None => parts.push("reads send no checksums".into()),
    }
    if args.upload_answers == UploadAnswers::Minimal {
        parts.push("JSON upload answers carry no size".into());
    }
    parts.push(match (&args.tls_cert, args.tls) {
        (Some(cert), _) => format!("TLS with {}", cert.display()),
        (None, true) => "TLS (a CA made now)".into(),
        (None, false) => "plaintext".into(),
    });
    format!("settings: {}", parts.join(", "))
}

/// `--require-auth`, `--trust`, `--token-ttl`, `--deny`.
fn auth_options(args: &EmulatorArgs) -> Result<AuthOptions, String> {
    let token_ttl = units::parse_duration(&args.token_ttl).map_err(|e| format!("--token-ttl: {e}"))?;
    if token_ttl.is_zero() {
        return Err("--token-ttl must be above zero, like 1h or 2s".into());
    }
    let mut trusted = Vec::new();
    for path in &args.trusted {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read --trust {}: {e}", path.display()))?;
        trusted.push(
            serde_json::from_str(&text)
                .map_err(|_| format!("--trust {} is not JSON: give a credentials file", path.display()))?,
        );
    }
    if !args.require_auth && !trusted.is_empty() {
        return Err("--trust is for --require-auth: add it, or leave --trust out".into());
    }
    Ok(AuthOptions {
        required: args.require_auth,
        token_ttl,
        trusted,
        denied: args.denied.clone(),
        ..AuthOptions::default()
    })
}
