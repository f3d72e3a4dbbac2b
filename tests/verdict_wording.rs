//! How a verdict is said when its interval is too wide to read: no
//! percentage and no interval ends are quoted as if they meant something.

use gcs_speed_tui::config::TransportKind::{Grpc, Json};
use gcs_speed_tui::engine::compare::{Comparison, MibRates};
use gcs_speed_tui::units::RateUnit;

#[test]
fn an_interval_too_wide_to_read_quotes_no_percentage() {
    let wide = Comparison {
        faster: Some(Json),
        slower: Some(Grpc),
        percent: Some(1176.1),
        rates: MibRates { faster_mib_s: Some(2036.38), slower_mib_s: Some(159.58) },
        ci_low: Some(-60.0),
        ci_high: Some(4000.0),
        pairs: 3,
        pairs_attempted: 3,
        method: String::new(),
        significant: false,
        no_verdict: None,
        measured: [(Json, Some(2036.38)), (Grpc, Some(159.58))],
    };
    let said = wide.sentence(RateUnit::MiB);
    assert_eq!(
        said,
        "no verdict yet (pooled rates http-json 2036.38 vs grpc 159.58 MiB/s; the 95% interval is too wide to read (its ends over 2.5x apart): run more rounds, 3 pairs)"
    );
    let faster = Comparison { significant: true, ci_low: Some(5.0), ..wide };
    let said = faster.sentence(RateUnit::MiB);
    assert!(said.starts_with("http-json was faster than grpc, by how much is unclear ("), "{said}");
    assert_eq!(said.matches('%').count(), 1, "only the interval's '95%': {said}");
}

#[test]
fn a_large_difference_with_a_tight_interval_is_quoted() {
    // gRPC at 2.17x: the rounds' ratios put it between 1.60x and 2.75x
    // (+60% to +175%): 115 points wide, yet its ends only 2.75/1.60 = 1.72x
    // apart, so the finding is said with its interval.
    let clear = Comparison {
        faster: Some(Grpc),
        slower: Some(Json),
        percent: Some(117.3),
        rates: MibRates { faster_mib_s: Some(6649.0), slower_mib_s: Some(3060.0) },
        ci_low: Some(60.0),
        ci_high: Some(175.0),
        pairs: 5,
        pairs_attempted: 5,
        method: String::new(),
        significant: true,
        no_verdict: None,
        measured: [(Grpc, Some(6649.0)), (Json, Some(3060.0))],
    };
    assert!(clear.readable());
    let said = clear.sentence(RateUnit::MiB);
    assert!(said.starts_with("grpc was 117.3% faster than http-json ("), "{said}");
    assert!(said.contains("95% CI +60.0% to +175.0%, 5 pairs"), "{said}");
    // Ends 2.5x apart is the widest quoted: 1.00x to 2.50x, and just past it.
    let at_limit = Comparison { ci_low: Some(0.0), ci_high: Some(150.0), ..clear.clone() };
    assert!(at_limit.readable(), "2.50 / 1.00 = 2.5x");
    let past = Comparison { ci_low: Some(0.0), ci_high: Some(150.5), ..clear.clone() };
    assert!(!past.readable(), "2.505 / 1.00 > 2.5x");
    // Around no difference: -40% to +60% is 100 points, and its ends
    // 1.6/0.6 = 2.67x apart: withheld, as 100 points were.
    let around_zero = Comparison { ci_low: Some(-40.0), ci_high: Some(60.0), significant: false, ..clear.clone() };
    assert!(!around_zero.readable());
    // An end at or below -100% is no ratio at all.
    let broken = Comparison { ci_low: Some(-100.0), ci_high: Some(10.0), ..clear };
    assert!(!broken.readable());
}
