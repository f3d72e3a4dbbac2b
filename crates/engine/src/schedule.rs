//! The order of rounds, and the ids a run hands out.

use crate::plan::{Order, TransportKind};
use units::random_u64;

/// The transports of one interleaved round, in order: AB, BA, AB, ... so
/// that drift and warm caches favour neither.
pub fn pair_order(transports: &[TransportKind], round: u32) -> Vec<TransportKind> {
    let mut kinds = transports.to_vec();
    if round % 2 == 1 {
        kinds.reverse();
    }
    kinds
}

/// The order of a fixed number of rounds.
pub fn schedule(transports: &[TransportKind], iterations: u32, order: Order) -> Vec<(u32, TransportKind)> {
    match order {
        Order::Interleaved => (0..iterations)
            .flat_map(|round| pair_order(transports, round).into_iter().map(move |kind| (round, kind)))
            .collect(),
        Order::Sequential => {
            transports.iter().flat_map(|&kind| (0..iterations).map(move |round| (round, kind))).collect()
        }
    }
}

/// Same across retries of one operation, unique between operations.
pub fn idempotency_token() -> String {
    format!("{:016x}{:016x}", random_u64(), random_u64())
}

/// `20261130-061500-3fa2`: sortable, and unique enough between runs.
pub fn new_run_id() -> String {
    let now = std::time::SystemTime::now();
    let stamp = units::rfc3339(now);
    let digits: String = stamp.chars().filter(char::is_ascii_digit).take(14).collect();
    format!("{}-{}-{:04x}", &digits[..8], &digits[8..14], random_u64() & 0xffff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use TransportKind::{Grpc, Json};

    #[test]
    fn interleaved_rounds_alternate_which_transport_goes_first() {
        let plan = schedule(&[Json, Grpc], 3, Order::Interleaved);
        assert_eq!(plan, [(0, Json), (0, Grpc), (1, Grpc), (1, Json), (2, Json), (2, Grpc)]);
    }

    #[test]
    fn sequential_rounds_do_one_transport_then_the_other() {
        let plan = schedule(&[Json, Grpc], 2, Order::Sequential);
        assert_eq!(plan, [(0, Json), (1, Json), (0, Grpc), (1, Grpc)]);
    }

    #[test]
    fn run_ids_and_tokens_are_unique() {
        assert_ne!(idempotency_token(), idempotency_token());
        let id = new_run_id();
        assert_eq!(id.len(), 20, "{id}");
        assert_ne!(id, new_run_id());
    }
}
