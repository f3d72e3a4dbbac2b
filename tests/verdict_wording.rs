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
        "no verdict yet (http-json 2036.38 vs grpc 159.58 MiB/s; the 95% interval is over 100 points wide, too wide to read: run more rounds, 3 pairs)"
    );
    let faster = Comparison { significant: true, ci_low: Some(5.0), ..wide };
    let said = faster.sentence(RateUnit::MiB);
    assert!(said.starts_with("http-json was faster than grpc, by how much is unclear ("), "{said}");
    assert_eq!(said.matches('%').count(), 1, "only the interval's '95%': {said}");
}
