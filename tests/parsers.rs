//! Property tests of the parsers that read what people and clients send:
//! whatever the input, an answer and never a panic; valid input round-trips.

use gcs_speed_tui::emulator::faults::{Fault, parse_rule};
use gcs_speed_tui::emulator::json_wire::{ContentRange, parse_content_range, parse_goog_hash, query_map};
use gcs_speed_tui::units::{format_duration, format_size_exact, parse_duration, parse_rate, parse_size};
use proptest::prelude::*;

proptest! {
    #[test]
    fn no_input_makes_a_parser_panic(text in ".{0,40}") {
        let _ = parse_size(&text);
        let _ = parse_duration(&text);
        let _ = parse_rate(&text);
        let _ = parse_content_range(&text);
        let _ = parse_goog_hash(&text);
        let _ = Fault::parse(&text);
        let _ = parse_rule(&text);
        let _ = query_map(Some(&text));
    }

    #[test]
    fn content_ranges_round_trip(first in 0u64..1 << 40, length in 1u64..1 << 30, extra in 0u64..1 << 20) {
        let last = first + length - 1;
        let total = last + 1 + extra;
        let parsed = parse_content_range(&format!("bytes {first}-{last}/{total}")).unwrap();
        prop_assert_eq!(parsed, ContentRange { bytes: Some((first, last)), total: Some(total) });
        let open = parse_content_range(&format!("bytes {first}-{last}/*")).unwrap();
        prop_assert_eq!(open.total, None);
        // A range past the total is refused.
        let past_the_end = format!("bytes {first}-{}/{last}", last + 1);
        prop_assert!(parse_content_range(&past_the_end).is_err());
    }

    #[test]
    fn sizes_round_trip_through_their_exact_spelling(bytes in 0u64..1 << 50) {
        prop_assert_eq!(parse_size(&format_size_exact(bytes)), Ok(bytes));
    }

    #[test]
    fn durations_round_trip(millis in 0u64..1 << 32) {
        let duration = std::time::Duration::from_millis(millis);
        prop_assert_eq!(parse_duration(&format_duration(duration)), Ok(duration));
    }

    #[test]
    fn fault_offsets_parse_in_binary_units(kib in 0u64..1 << 20, code in 400u16..600) {
        let fault = Fault::parse(&format!("return-{code}-after-{kib}K")).unwrap();
        prop_assert_eq!(fault.after_bytes, kib * 1024);
    }
}
