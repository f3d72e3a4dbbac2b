use super::*;

#[test]
fn timestamps_are_rfc3339() {
    let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(1_796_018_200_123);
    assert_eq!(rfc3339(t), "2026-11-30T05:56:40.123Z");
    assert_eq!(rfc3339(std::time::SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
}

#[test]
fn rates_convert_between_units() {
    assert_eq!(RateUnit::MiB.format(7.56), "7.56 MiB/s");
    // 100 MiB/s = 104.8576 MB/s = 0.8388608 Gbit/s.
    assert_eq!(RateUnit::MB.format(100.0), "104.86 MB/s");
    assert_eq!(RateUnit::Gbit.format(100.0), "0.839 Gbit/s");
    assert_eq!(RateUnit::Gbit.format(1192.0929), "10.0 Gbit/s");
    assert_eq!(RateUnit::parse("gbit"), Ok(RateUnit::Gbit));
    assert_eq!(RateUnit::parse("MB/s"), Ok(RateUnit::MB));
    assert!(RateUnit::parse("furlongs").is_err());
}

#[test]
fn sizes_parse_in_binary_and_decimal_units() {
    assert_eq!(parse_size("64MiB"), Ok(64 * MIB));
    assert_eq!(parse_size("1GiB"), Ok(GIB));
    assert_eq!(parse_size("1.5KiB"), Ok(1536));
    assert_eq!(parse_size("100MB"), Ok(100_000_000));
    assert_eq!(parse_size("256K"), Ok(256 * KIB));
    assert_eq!(parse_size("4096B"), Ok(4096));
    assert_eq!(parse_size("64"), Err("'64' has no unit: write 64B for bytes, or 64MiB".into()));
    assert_eq!(parse_size(" 2 MiB "), Ok(2 * MIB));
    assert_eq!(parse_size("0"), Ok(0));
}

#[test]
fn bad_sizes_say_what_to_type() {
    for bad in ["", "MiB", "12XB", "-1MiB", "1.2.3MiB", "0.3B"] {
        let error = parse_size(bad).unwrap_err();
        assert!(error.contains(bad), "{error}");
    }
    assert!(parse_size("99999999999TiB").unwrap_err().contains("too large"));
}

#[test]
fn durations_parse_with_units_and_compounds() {
    assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
    assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
    assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
    assert_eq!(parse_duration("2.5s"), Ok(Duration::from_millis(2500)));
    for bad in ["", "10", "5 minutes", "s", "1x"] {
        assert!(parse_duration(bad).is_err(), "{bad}");
    }
}

#[test]
fn rates_parse_bits_and_bytes() {
    assert_eq!(parse_rate("200Mbit"), Ok(25_000_000));
    assert_eq!(parse_rate("1Gbit"), Ok(125_000_000));
    assert_eq!(parse_rate("100MiB"), Ok(100 * MIB));
    assert!(parse_rate("fast").is_err());
    assert!(parse_rate("200").unwrap_err().contains("with a unit"), "bits or bytes? say which");
    assert!(parse_rate("0Mbit").unwrap_err().contains("leave the flag out"));
    assert!(parse_rate("0B").is_err());
}

#[test]
fn go_style_booleans() {
    assert_eq!(parse_bool("false"), Ok(false));
    assert_eq!(parse_bool("T"), Ok(true));
    assert_eq!(parse_bool("0"), Ok(false));
    assert!(parse_bool("yes").is_err());
}

#[test]
fn sizes_and_times_print_for_people() {
    assert_eq!(format_size(64 * MIB), "64 MiB");
    assert_eq!(format_size(1536 * KIB), "1.50 MiB");
    assert_eq!(format_size(100), "100 B");
    assert_eq!(format_size_exact(64 * MIB), "64MiB");
    assert_eq!(format_size_exact(1536 * KIB), "1536KiB");
    assert_eq!(format_seconds(8.5134), "8.51 s");
    assert_eq!(format_seconds(0.12345), "0.123 s");
    assert_eq!(format_seconds(12.345), "12.3 s");
    assert_eq!(format_duration(Duration::from_secs(600)), "10m");
    assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    assert_eq!(format_mib_s(7.5647), "7.56 MiB/s");
}

#[test]
fn throughput_is_mib_over_seconds() {
    assert_eq!(mib_per_second(64 * MIB, 8.0), 8.0);
    assert_eq!(mib_per_second(64 * MIB, 0.0), 0.0);
}

#[test]
fn long_spans_are_said_in_their_two_largest_units() {
    use std::time::Duration;
    let span = |s: u64| format_span(Duration::from_secs(s));
    assert_eq!(span(10), "10s");
    assert_eq!(span(200), "3m 20s");
    assert_eq!(span(7200), "2h");
    assert_eq!(span(7500), "2h 5m");
    assert_eq!(span(3 * 86_400 + 4 * 3600 + 59), "3d 4h");
    assert_eq!(span(218_336_548), "6.9 years");
}

#[test]
fn latencies_are_said_in_the_unit_that_fits_and_small_rates_keep_their_digits() {
    assert_eq!(format_latency(0.000838), "838 µs");
    assert_eq!(format_latency(0.00399), "3.99 ms");
    assert_eq!(format_latency(2.09), "2.09 s");
    // Just under a unit's 1,000, rounding to 3 digits reaches it: the next unit.
    assert_eq!(format_latency(0.99996), "1.00 s");
    assert_eq!(format_latency(0.00099996), "1.00 ms");
    assert_eq!(format_latency(0.9994), "999 ms");
    assert_eq!(format_seconds(9.9996), "10.0 s", "three digits of the rounded value");
    assert_eq!(RateUnit::MiB.format(0.000954), "0.000954 MiB/s", "never 0.00 for a measured rate");
    assert_eq!(RateUnit::MiB.format(7.5632), "7.56 MiB/s");
    // 2 calls in 2.5 s: 0.8 calls/s, not rounded to 1 (nor 0.4 to 0).
    assert_eq!(RateUnit::Calls.format(2.0 / 2.5), "0.800 calls/s");
    assert_eq!(RateUnit::Ops.format(12.345), "12.3 ops/s");
    assert_eq!(RateUnit::Ops.format(7412.4), "7412 ops/s", "whole numbers from 100 up");
}

#[test]
fn splitmix64_gives_the_reference_stream() {
    // The first two outputs of the reference SplitMix64 seeded with 0
    // (Vigna's splitmix64.c): its state steps by the golden gamma.
    assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    assert_eq!(splitmix64(0x9e37_79b9_7f4a_7c15), 0x6e78_9e6a_a1b9_65f4);
}
