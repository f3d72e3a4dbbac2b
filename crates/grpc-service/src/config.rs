//! `grpc run`'s flags checked into a run: the service's types compiled, the
//! method found, the request read as the method's input, the HTTP mapping
//! chosen, each fault one sentence naming its flag.

use crate::call_headers::CallHeaders;
use crate::error::ServiceError;
use crate::mapping::Mapping;
use crate::options::{Data, GrpcRunArgs, ServiceArgs, text_or_file};
use crate::reach::Reach;
use crate::schema::{self, ProtoFiles};
use crate::sign_in::SignIn;
use crate::template::{Call, Template};
use engine::plan::flags::{ConfigError, fail, parse_calls_schedule, parse_count};
use engine::plan::{Schedule, TransportKind};
use prost_reflect::{DescriptorPool, MethodDescriptor};

/// Calls in the warmup round, per client, at most.
pub const WARMUP_REQUESTS: u32 = 100;

/// A method and the request it is sent, as a template.
#[derive(Clone, Debug, PartialEq)]
pub struct Calling {
    pub method: MethodDescriptor,
    pub request: Template,
}

/// A validated `grpc run`.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceConfig {
    pub calling: Calling,
    /// `--data` as given (a file's text), for the report.
    pub data: String,
    /// `None`: HTTP/JSON is not among the transports.
    pub mapping: Option<Mapping>,
    pub reach: Reach,
    /// `--header` values with placeholders, filled call by call.
    pub call_headers: CallHeaders,
    /// `--auth google`: every call signed in.
    pub sign_in: Option<SignIn>,
    pub ignore_fields: Vec<String>,
    pub check: bool,
    /// Called once over gRPC as the run ends, even a cancelled one.
    pub cleanup_call: Option<Calling>,
    pub clients: u32,
    pub requests: u32,
    pub schedule: Schedule,
    pub client_threads: usize,
    pub warmup: bool,
    pub cleanup: bool,
    /// Where the types came from: `rpc.proto`, a descriptor set.
    pub schema: String,
    pub notes: Vec<String>,
}

impl GrpcRunArgs {
    pub fn validate(&self) -> Result<ServiceConfig, ConfigError> {
        let s = &self.service;
        let mut notes = Vec::new();
        // What needs neither types nor a server is checked first: --reflect asks one.
        if s.method.trim().is_empty() {
            return fail(
                "method",
                "--method is missing: give the method to call as pkg.Service/Method, like etcdserverpb.KV/Put",
            );
        }
        let clients = parse_count(&s.clients, "clients", 1, 10_000)?;
        let requests = parse_count(&s.requests, "requests", 1, 100_000_000)?;
        let conns = parse_count(&s.conns, "conns", 1, 1024)?;
        // HTTP/JSON over HTTP/1.1 takes a connection a client; gRPC its channels.
        let what = format!("--clients {clients}'s connections");
        engine::descriptors::fit(u64::from(clients) + u64::from(conns), &what)
            .map_err(|message| ConfigError { field: "clients", message })?;
        let schedule = parse_calls_schedule(&engine::schedule_text!(self.schedule), &mut notes)?;
        let (pool, schema) = types(s)?;
        let mut reach = s.reach(conns).map_err(|m| error("grpc_endpoint", m))?;
        let method = crate::method::find(&pool, &s.method).map_err(|e| error("method", e))?;
        let call_headers = CallHeaders::new(&mut reach.headers, &method).map_err(|m| error("header", m))?;
        let sign_in = SignIn::of(s, &reach, &schedule.transports)?;
        let data = text_or_file(&s.data, "--data").map_err(|m| error("data", m))?;
        let template = request(&method, &data, "data")?;
        // A file of many requests is named, not copied into the report.
        let data = match (&data.file, template.lines()) {
            (Some(path), lines) if lines > 1 => format!("@{path}: {lines} requests, one a line, used in turn"),
            _ => data.text,
        };
        let given = s.requests.trim() != "1000";
        let requests = engine::plan::requests_per_client(&schedule, clients, requests, given, &mut notes);
        let over_http = schedule.transports.contains(&TransportKind::Json);
        let mapping = if over_http { Some(mapping(s, &method)?) } else { None };
        bidi_over_a_rule(&method, mapping.as_ref())?;
        let ignore_fields: Vec<String> = s.ignore_fields.iter().map(|f| f.trim().to_string()).collect();
        crate::compare::check_ignored(&method.output(), &ignore_fields).map_err(|m| error("ignore_field", m))?;
        let cleanup_call = match s.cleanup_method.trim() {
            "" if !matches!(s.cleanup_data.trim(), "" | "{}") => {
                return fail(
                    "cleanup_data",
                    "--cleanup-data is given without --cleanup-method: name the method that deletes what the run made, or leave --cleanup-data out",
                );
            }
            "" => None,
            name => {
                let method = crate::method::find(&pool, name)
                    .map_err(|e| error("cleanup_method", e.to_string().replacen("--method", "--cleanup-method", 1)))?;
                let data = text_or_file(&s.cleanup_data, "--cleanup-data").map_err(|m| error("cleanup_data", m))?;
                Some(Calling { request: request(&method, &data, "cleanup_data")?, method })
            }
        };
        Ok(ServiceConfig {
            calling: Calling { method, request: template },
            data,
            mapping,
            reach,
            call_headers,
            sign_in,
            ignore_fields,
            check: s.check,
            cleanup_call,
            clients,
            requests,
            schedule,
            client_threads: s.client_threads(),
            warmup: self.schedule.warmup,
            cleanup: self.schedule.cleanup,
            schema,
            notes,
        })
    }
}

/// A bidi stream has no form under an HTTP rule: said, with what runs it.
fn bidi_over_a_rule(method: &MethodDescriptor, mapping: Option<&Mapping>) -> Result<(), ConfigError> {
    let bidi = method.is_client_streaming() && method.is_server_streaming();
    if !bidi || !matches!(mapping, Some(Mapping::Rule { .. })) {
        return Ok(());
    }
    fail(
        "http_mapping",
        format!(
            "--method {}/{} is bidi, which an HTTP rule does not carry: use --http-mapping connect (Connect's protocol, over HTTP/2), or run it over gRPC alone with --transports grpc",
            method.parent_service().full_name(),
            method.name()
        ),
    )
}

fn error(field: &'static str, message: impl ToString) -> ConfigError {
    ConfigError { field, message: message.to_string() }
}

/// The service's types, from --proto files or a descriptor set, and how
/// the report names where they came from.
fn types(s: &ServiceArgs) -> Result<(DescriptorPool, String), ConfigError> {
    if s.reflect {
        if s.descriptor_set.is_some() || !s.protos.is_empty() {
            return fail("proto", "--reflect, --proto and --descriptor-set each give the types: give one of them");
        }
        return reflected(s);
    }
    match (&s.descriptor_set, s.protos.is_empty()) {
        (Some(_), false) => fail("proto", "--proto and --descriptor-set both give the types: give one of them"),
        (Some(set), true) => {
            let pool = schema::descriptor_set(set).map_err(|e| error("descriptor_set", e))?;
            Ok((pool, set.display().to_string()))
        }
        (None, true) => fail(
            "proto",
            "the service's types are missing: give its .proto with --proto (its imports' directories with --import-path), or --descriptor-set, or --reflect",
        ),
        (None, false) => {
            let files = ProtoFiles { files: s.protos.clone(), includes: s.import_paths.clone() };
            let pool = schema::compile(&files).map_err(|e| error("proto", e))?;
            let names: Vec<String> = s.protos.iter().map(|p| p.display().to_string()).collect();
            Ok((pool, names.join(", ")))
        }
    }
}

/// The types from the server's reflection, asked on a thread of its own
/// (the flags are checked outside any runtime, or inside the front end's),
/// once per server and headers: the app's form checks its fields often.
fn reflected(s: &ServiceArgs) -> Result<(DescriptorPool, String), ConfigError> {
    static ASKED: std::sync::Mutex<Vec<(Reach, DescriptorPool)>> = std::sync::Mutex::new(Vec::new());
    let reach = s.reach(1).map_err(|m| error("grpc_endpoint", m))?;
    let said = format!("reflection from {}", reach.grpc_endpoint);
    if let Some((_, pool)) = ASKED.lock().unwrap().iter().find(|(asked, _)| *asked == reach) {
        return Ok((pool.clone(), said));
    }
    let asking = || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        let runtime = runtime.map_err(|e| error("reflect", format!("--reflect: cannot start a runtime ({e})")))?;
        runtime.block_on(crate::reflect::reflect(&reach)).map_err(|e| error("reflect", e))
    };
    let pool = std::thread::scope(|scope| scope.spawn(asking).join())
        .unwrap_or_else(|_| fail("reflect", "--reflect: the reflection request failed"))?;
    ASKED.lock().unwrap().push((reach, pool.clone()));
    Ok((pool, said))
}

/// The request template, checked by building call 0's message.
fn request(method: &MethodDescriptor, data: &Data, field: &'static str) -> Result<Template, ConfigError> {
    let flag = format!("--{}", field.replace('_', "-"));
    let said = |e: ServiceError| error(field, e.to_string().replacen("--data", &flag, 1));
    let template = match data.file {
        Some(_) => Template::parse_file(&data.text),
        None => Template::parse(&data.text),
    }
    .map_err(said)?;
    // Each line is checked before anything is sent: line `seq` is call `seq`'s.
    for seq in 0..template.lines() as u64 {
        let call = Call { seq, client: 0, run: "run-id", transport: "grpc", round: 0 };
        template.messages(method, call).map_err(said)?;
    }
    Ok(template)
}

/// `--http-mapping` and `--http-path`: the method's rule unless a path is
/// given, or Connect's protocol.
fn mapping(s: &ServiceArgs, method: &MethodDescriptor) -> Result<Mapping, ConfigError> {
    match (s.http_mapping.trim(), s.http_path.trim()) {
        ("connect", "") => Ok(Mapping::connect(method)),
        ("connect", _) => fail("http_path", "--http-path is for --http-mapping rule: Connect's path is the method's"),
        ("rule", "") => match Mapping::from_rule(method).map_err(|e| error("method", e))? {
            Some(mapping) => Ok(mapping),
            None => fail(
                "http_path",
                format!(
                    "{}/{} has no google.api.http rule in its .proto: give one with --http-path \"POST /path\", use --http-mapping connect, or run it over gRPC alone with --transports grpc",
                    method.parent_service().full_name(),
                    method.name()
                ),
            ),
        },
        ("rule", path) => {
            Mapping::from_flag(method, path).map_err(|e| error("http_path", format!("--http-path '{path}': {e}")))
        }
        (other, _) => fail("http_mapping", format!("--http-mapping '{other}' is not one of rule, connect")),
    }
}

impl ServiceConfig {
    /// The method as people write it: `etcdserverpb.KV/Put`.
    pub fn method_name(&self) -> String {
        let method = &self.calling.method;
        format!("{}/{}", method.parent_service().full_name(), method.name())
    }

    /// What a cancel does, said as it starts.
    pub fn stopping_sentence(&self) -> String {
        match (&self.cleanup_call, self.cleanup) {
            (Some(_), true) => "stopping calls and calling the cleanup method".into(),
            (Some(_), false) => "stopping calls; the cleanup method is not called (--cleanup=false)".into(),
            (None, _) => "stopping calls".into(),
        }
    }

    /// How the headless progress words this run's rounds.
    pub fn round_words(&self) -> engine::events::RoundWords {
        engine::events::RoundWords {
            unit: units::RateUnit::Calls,
            amount: engine::events::Amount::Count("calls"),
            items: self.clients * self.requests,
            noun: "call",
            parts: None,
        }
    }
}

impl ServiceConfig {
    /// The live pane's plan: calls instead of bytes, calls/s, latencies per round.
    pub fn lane_plan(&self) -> engine::live::LanePlan {
        let schedule = &self.schedule;
        let per_round = schedule.calls_per_round(self.clients, self.requests);
        engine::live::LanePlan {
            transports: schedule.transports.clone(),
            rounds: schedule.iterations,
            items: 0,
            amount: per_round * schedule.iterations as u64,
            work: engine::live::Work {
                weighed: false,
                one: "call",
                counted: "calls",
                doing: ["running "; 2],
                items: "calls",
            },
            parts: vec!["call"],
            duration_s: schedule.duration.map(|d| d.as_secs_f64()),
            reading: std::sync::Arc::new(engine::calls::live::CallsReading { unit: units::RateUnit::Calls }),
            open_rate: schedule.open_loop.as_ref().map(|open| open.rate),
        }
    }
}
