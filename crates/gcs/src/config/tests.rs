use super::*;
use units::{KIB, MIB};

fn valid(options: &Options) -> BenchConfig {
    options.validate(&Environment::default()).unwrap()
}

fn error(options: &Options) -> ConfigError {
    options.validate(&Environment::default()).unwrap_err()
}

#[test]
fn defaults_are_the_original_tools() {
    let config = valid(&Options::default());
    assert_eq!(config.object_size, 64 * MIB);
    assert_eq!((config.iterations, config.concurrency), (3, 1));
    assert_eq!(config.chunk_size, 16 * MIB);
    assert!(config.cleanup && config.warmup && config.json_checksum && config.grpc_checksum);
    assert_eq!(config.warmup_size, MIB);
    assert_eq!(config.timeout, Duration::from_secs(600));
    assert_eq!(config.transports, [TransportKind::Json, TransportKind::Grpc]);
    assert_eq!(config.target, Target::BuiltIn, "no bucket: the built-in emulator");
    assert!(config.notes[0].contains("built-in emulator"));
}

#[test]
fn chunk_sizes_round_up_to_256k_with_a_note() {
    let config = valid(&Options { chunk_size: "1000KiB".into(), ..Options::default() });
    assert_eq!(config.chunk_size, 1024 * KIB);
    assert!(config.notes.iter().any(|n| n.contains("rounded up to 1 MiB")));
    assert_eq!(valid(&Options { chunk_size: "0".into(), ..Options::default() }).chunk_size, 0);
}

#[test]
fn bad_values_name_the_flag_and_the_fix() {
    let cases = [
        (Options { size: "12XB".into(), ..Options::default() }, "size", "--size: '12XB' is not a size"),
        (Options { size: "0".into(), ..Options::default() }, "size", "between 1 B and 5 TiB"),
        (Options { iterations: "0".into(), ..Options::default() }, "iterations", "--iterations must be between 1"),
        (Options { concurrency: "many".into(), ..Options::default() }, "concurrency", "not a whole number"),
        (Options { timeout: "soon".into(), ..Options::default() }, "timeout", "--timeout: 'soon' is not a duration"),
        (Options { transports: "ftp".into(), ..Options::default() }, "transports", "not one of both"),
        (Options { bucket: "Bad_Bucket".into(), ..Options::default() }, "bucket", "not a valid bucket name"),
        (Options { checksum: "md5".into(), ..Options::default() }, "checksum", "crc32c, none"),
    ];
    for (options, field, text) in cases {
        let e = error(&options);
        assert_eq!(e.field, field);
        assert!(e.message.contains(text), "{} !~ {text}", e.message);
    }
}

#[test]
fn grpc_checksums_follow_both_switches() {
    let off = valid(&Options { disable_grpc_autochecksum: true, ..Options::default() });
    assert!(off.json_checksum && !off.grpc_checksum);
    let none = valid(&Options { checksum: "none".into(), ..Options::default() });
    assert!(!none.json_checksum && !none.grpc_checksum);
}

#[test]
fn a_prefix_with_empty_parts_is_cleaned_and_says_so() {
    let notes = |prefix: &str| {
        let config = valid(&Options { prefix: prefix.into(), ..Options::default() });
        let said: Vec<String> = config.notes.into_iter().filter(|n| n.contains("--prefix")).collect();
        (config.prefix, said)
    };
    let (prefix, said) = notes("/abs//x");
    assert_eq!(prefix, "abs/x");
    assert_eq!(said, ["--prefix '/abs//x' is used as 'abs/x' (object names get no empty parts)"]);
    assert_eq!(notes("team/bench/"), ("team/bench".to_string(), vec![]), "a trailing slash is the separator");
    assert_eq!(notes(""), (String::new(), vec![]));
}
