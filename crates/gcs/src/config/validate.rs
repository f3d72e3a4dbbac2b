//! `Options` (text as typed) to `BenchConfig`, or the one sentence that
//! says what is wrong, field by field.

use super::ranges::RangeSizes;
use super::target_choice::{self, Environment, Target};
use super::{BenchConfig, ConfigError, JsonHttp, MAX_OBJECT_BYTES, Options, Workload, fail, flag_error, parse_count};
use engine::plan::{Schedule, parse_schedule};
use engine::schedule_text;
use gcs_protocol::rules::CHUNK_ALIGNMENT;
use std::path::PathBuf;
use std::time::Duration;
use units;

/// Retries: how many, for how long in all, the first back-off, and each
/// request's own timeout.
struct Retries {
    max: u32,
    deadline: Duration,
    initial: Duration,
    request_timeout: Duration,
}

/// What is read, checked together: the workload, the size of each read's
/// range (the largest of a list or spread), and the prefix of existing
/// objects to read.
struct Reads {
    workload: Workload,
    range_size: u64,
    range_sizes: RangeSizes,
    read_prefix: Option<String>,
}

impl Options {
    pub fn validate(&self, env: &Environment) -> Result<BenchConfig, ConfigError> {
        let mut notes = Vec::new();
        let (object_size, chunk_size, warmup_size) = self.sizes(&mut notes)?;
        let Reads { workload, range_size, range_sizes, read_prefix } = self.reads(object_size)?;
        let ranges = self.ranges_plan(workload, range_size, range_sizes)?;
        let append = self.append_plan(workload, object_size)?;
        let concurrency = parse_count(&self.concurrency, "concurrency", 1, 1024)?;
        let grpc_conn_pool = parse_count(&self.grpc_conn_pool, "grpc_conn_pool", 0, 256)?;
        let (checksum, json_http) = self.choices()?;
        let prefix = self.object_prefix(&mut notes)?;
        let Schedule { transports, iterations, timeout, order, duration, until_stable, open_loop } =
            parse_schedule(&schedule_text!(self), &mut notes)?;
        let concurrency = self.objects_per_round(concurrency, open_loop.as_ref(), &mut notes);
        super::ranges::check_lanes(&transports, ranges.as_ref())?;
        let grpc_window = self.grpc_window()?;
        let retries = self.retries()?;
        let (target, bucket) = self.choose_target(env, &transports, &mut notes)?;
        let emulator_fault = self.fault(&target, &mut notes);
        let auth = self.auth_for(&target)?;
        let (credentials, ca_cert) = self.credentials_and_ca(env, &target, auth, &mut notes)?;
        let rate_unit = units::RateUnit::parse(&self.rate_unit).map_err(flag_error("rate_unit"))?;
        Ok(BenchConfig {
            target,
            bucket,
            transports,
            object_size,
            iterations,
            concurrency,
            chunk_size,
            cleanup: self.cleanup,
            warmup: self.warmup,
            warmup_size,
            workload,
            range_size,
            ranges,
            append,
            read_prefix,
            json_checksum: checksum,
            grpc_checksum: checksum && !self.disable_grpc_autochecksum,
            grpc_conn_pool,
            timeout,
            credentials,
            auth,
            ca_cert,
            order,
            prefix,
            json_http,
            duration,
            until_stable,
            open_loop,
            grpc_window,
            max_retries: retries.max,
            retry_deadline: retries.deadline,
            retry_initial: retries.initial,
            request_timeout: retries.request_timeout,
            fail_fast: self.fail_fast,
            emulator_fault,
            rate_unit,
            notes,
        })
    }

    /// A round's objects: `--concurrency` in closed loop; in open loop its
    /// arrivals (`--rate` x `--round-time`), with a note when a
    /// `--concurrency` the user gave is set aside for them.
    fn objects_per_round(
        &self,
        concurrency: u32,
        open: Option<&engine::open_loop::OpenLoop>,
        notes: &mut Vec<String>,
    ) -> u32 {
        let Some(open) = open else { return concurrency };
        if concurrency != 1 {
            notes.push(format!(
                "--concurrency {concurrency} is not used under --rate: each round's objects are its {}",
                engine::report::plural(open.per_round() as usize, "arrival")
            ));
        }
        open.per_round().min(u64::from(u32::MAX)) as u32
    }

    /// The object, chunk and warmup sizes; a chunk size off GCS's alignment
    /// is rounded up, and says so.
    fn sizes(&self, notes: &mut Vec<String>) -> Result<(u64, u64, u64), ConfigError> {
        let object_size = units::parse_size(&self.size).map_err(flag_error("size"))?;
        if object_size == 0 || object_size > MAX_OBJECT_BYTES {
            return fail("size", "--size must be between 1 B and 5 TiB (the largest GCS object)");
        }
        let mut chunk_size = units::parse_size(&self.chunk_size).map_err(flag_error("chunk_size"))?;
        if chunk_size % CHUNK_ALIGNMENT != 0 {
            let rounded = chunk_size.div_ceil(CHUNK_ALIGNMENT) * CHUNK_ALIGNMENT;
            notes.push(format!(
                "chunk size {} rounded up to {}: GCS takes resumable chunks in multiples of 256 KiB",
                units::format_size(chunk_size),
                units::format_size(rounded)
            ));
            chunk_size = rounded;
        }
        let warmup_size = units::parse_size(&self.warmup_size).map_err(flag_error("warmup_size"))?;
        if self.warmup && (warmup_size == 0 || warmup_size > MAX_OBJECT_BYTES) {
            return fail("warmup_size", "--warmup-size must be between 1 B and 5 TiB");
        }
        Ok((object_size, chunk_size, warmup_size))
    }

    /// The workload, the size of each read's range, and the prefix of
    /// existing objects to read, checked together.
    fn reads(&self, object_size: u64) -> Result<Reads, ConfigError> {
        let workload = match self.workload.trim() {
            "upload" | "" => Workload::Upload,
            "download" => Workload::Download,
            "w1r3" => Workload::W1r3,
            "ranges" => Workload::Ranges,
            "append" => Workload::Append,
            other => {
                let choices = "upload, download, w1r3, ranges, append";
                return fail("workload", format!("--workload '{other}' is not one of {choices}"));
            }
        };
        let (range_size, range_sizes) = RangeSizes::parse(&self.range_size)?;
        if !range_sizes.is_fixed() && workload != Workload::Ranges {
            return fail(
                "range_size",
                "--range-size as a list or a spread is for --workload ranges: give one size for other reads",
            );
        }
        if range_size > 0 && !workload.reads() {
            return fail(
                "range_size",
                "--range-size is for reads: add --workload download, w1r3 or ranges, or leave it at 0",
            );
        }
        if range_size > object_size {
            return fail(
                "range_size",
                match range_sizes.is_fixed() {
                    true => {
                        format!("--range-size {} is larger than the objects (--size {})", self.range_size, self.size)
                    }
                    false => format!(
                        "--range-size {}: its largest, {}, is larger than the objects (--size {})",
                        self.range_size,
                        units::format_size(range_size),
                        self.size
                    ),
                },
            );
        }
        let read_prefix = Some(self.read_prefix.trim()).filter(|p| !p.is_empty()).map(String::from);
        if read_prefix.is_some() && !matches!(workload, Workload::Download | Workload::Ranges) {
            return fail(
                "read_prefix",
                "--read-prefix names existing objects to read: add --workload download or ranges (w1r3 reads what it writes)",
            );
        }
        Ok(Reads { workload, range_size, range_sizes, read_prefix })
    }

    /// `--checksum` and `--json-http`.
    fn choices(&self) -> Result<(bool, JsonHttp), ConfigError> {
        let checksum = match self.checksum.trim() {
            "crc32c" => true,
            "none" => false,
            other => return fail("checksum", format!("--checksum '{other}' is not one of crc32c, none")),
        };
        let json_http = match self.json_http.trim() {
            "auto" => JsonHttp::Auto,
            "1.1" | "1" => JsonHttp::Http1,
            "2" => JsonHttp::Http2,
            other => return fail("json_http", format!("--json-http '{other}' is not one of auto, 1.1, 2")),
        };
        Ok((checksum, json_http))
    }

    /// Object names get no empty parts ('/' at the start or end, '//'), and
    /// a prefix that is changed for that says so.
    fn object_prefix(&self, notes: &mut Vec<String>) -> Result<String, ConfigError> {
        let typed = self.prefix.trim();
        let prefix = typed.split('/').filter(|part| !part.is_empty()).collect::<Vec<_>>().join("/");
        if prefix != typed.trim_end_matches('/') {
            notes.push(format!("--prefix '{typed}' is used as '{prefix}' (object names get no empty parts)"));
        }
        if prefix.contains(['\n', '\r', '#', '[', ']', '*', '?']) || prefix.len() > 512 {
            return fail("prefix", "--prefix may not contain newlines or # [ ] * ? and must be under 512 characters");
        }
        Ok(prefix)
    }

    fn grpc_window(&self) -> Result<Option<u32>, ConfigError> {
        match self.grpc_window.trim() {
            "" | "auto" => Ok(None),
            text => match units::parse_size(text).map_err(flag_error("grpc_window"))? {
                size if (65_535..(1u64 << 31)).contains(&size) => Ok(Some(size as u32)),
                _ => fail("grpc_window", "--grpc-window must be from 64KiB to 2GiB, or auto"),
            },
        }
    }

    fn retries(&self) -> Result<Retries, ConfigError> {
        let positive = |text: &str, field: &'static str| match units::parse_duration(text).map_err(flag_error(field))? {
            d if d.is_zero() => fail(field, format!("--{} must be above zero", field.replace('_', "-"))),
            d => Ok(d),
        };
        Ok(Retries {
            max: parse_count(&self.max_retries, "max_retries", 0, 100)?,
            deadline: positive(&self.retry_deadline, "retry_deadline")?,
            initial: positive(&self.retry_initial, "retry_initial")?,
            request_timeout: positive(&self.request_timeout, "request_timeout")?,
        })
    }

    /// `--emulator-fault`, kept only for the built-in emulator (said when
    /// dropped). Its grammar is the emulator's: the front end that launches
    /// the emulator parses it (`launch::emulator_faults`).
    fn fault(&self, target: &Target, notes: &mut Vec<String>) -> Option<String> {
        match self.emulator_fault.trim() {
            "" => None,
            spec if *target == Target::BuiltIn => Some(spec.to_string()),
            _ => {
                notes.push("--emulator-fault is ignored: only the built-in emulator takes faults".into());
                None
            }
        }
    }

    /// Whether tokens are sent: always to GCS, never to the built-in
    /// emulator, and to an endpoint as `--auth` and the URL's rule say.
    fn auth_for(&self, target: &Target) -> Result<bool, ConfigError> {
        match target {
            Target::Gcs => Ok(true),
            Target::BuiltIn if self.auth.trim() == "gcs" => fail(
                "auth",
                "--auth gcs needs an endpoint that checks tokens: the built-in emulator does not (run `gcs-speed-tui emulator --tls --require-auth` and point --endpoint at it)",
            ),
            Target::BuiltIn => Ok(false),
            Target::Endpoint { json_url, grpc_url } => {
                let by_url = target_choice::endpoint_auth(&self.auth, [json_url.as_deref(), grpc_url.as_deref()])
                    .map_err(|message| ConfigError { field: "auth", message })?;
                match (self.auth.trim(), self.credentials.trim().is_empty()) {
                    ("none", false) => {
                        fail("auth", "--auth none sends no token, but --credentials names some: drop one of the two")
                    }
                    // Credentials named for an endpoint are meant to be sent.
                    ("auto" | "", false) => Ok(true),
                    _ => Ok(by_url),
                }
            }
        }
    }

    /// The credentials file (said ignored where no token is sent) and the
    /// CA to trust (`--ca-cert`, else SSL_CERT_FILE).
    fn credentials_and_ca(
        &self,
        env: &Environment,
        target: &Target,
        auth: bool,
        notes: &mut Vec<String>,
    ) -> Result<(Option<PathBuf>, Option<PathBuf>), ConfigError> {
        let ca_cert = Some(self.ca_cert.trim())
            .filter(|c| !c.is_empty())
            .map(String::from)
            .or_else(|| env.var("SSL_CERT_FILE").map(String::from))
            .map(PathBuf::from);
        let credentials = Some(self.credentials.trim()).filter(|c| !c.is_empty()).map(PathBuf::from);
        if credentials.is_some() && !auth {
            if *target == Target::BuiltIn && self.bucket.trim().is_empty() && !self.emulator {
                return fail(
                    "credentials",
                    "--credentials needs --bucket: without a bucket the run goes to the built-in emulator, which takes no credentials",
                );
            }
            notes.push(format!(
                "--credentials is ignored: the {} takes no credentials",
                match target {
                    Target::BuiltIn => "built-in emulator",
                    _ => "endpoint (add --auth gcs to send them)",
                }
            ));
        }
        Ok((credentials, ca_cert))
    }
}
