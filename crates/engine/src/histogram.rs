//! Latency histograms as reports carry them: HdrHistogram's V2 compressed
//! encoding, in base64, the form every HdrHistogram library reads. Merging
//! histograms is exact where merging percentiles is not, so a fleet's p99
//! is the p99 of all its requests.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// The histogram's V2 compressed encoding, in base64.
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(histogram, &mut bytes).expect("a histogram encodes into memory");
    STANDARD.encode(bytes)
}

/// The histogram from `encode`'s text, or why it is not one.
pub fn decode(text: &str) -> Result<Histogram<u64>, String> {
    let bytes = STANDARD.decode(text.trim()).map_err(|e| format!("not base64 ({e})"))?;
    let mut histogram: Histogram<u64> =
        Deserializer::new().deserialize(&mut bytes.as_slice()).map_err(|e| format!("not an HdrHistogram ({e:?})"))?;
    // It grows to hold what is added to it (a fleet's hosts, folded rounds).
    histogram.auto(true);
    Ok(histogram)
}

/// The sum of histograms (each request of each counted once); `None` for none.
pub fn merged<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<Option<Histogram<u64>>, String> {
    let mut sum: Option<Histogram<u64>> = None;
    for text in texts {
        let histogram = decode(text)?;
        match &mut sum {
            None => sum = Some(histogram),
            Some(sum) => sum.add(&histogram).map_err(|e| format!("histograms of different ranges ({e:?})"))?,
        }
    }
    Ok(sum)
}

/// A histogram field as its `encode`d text (null when empty), so that a
/// report read back keeps it: `#[serde(with = "crate::histogram::as_text")]`.
pub mod as_text {
    use hdrhistogram::Histogram;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(histogram: &Histogram<u64>, s: S) -> Result<S::Ok, S::Error> {
        if histogram.is_empty() { s.serialize_none() } else { s.serialize_some(&super::encode(histogram)) }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Histogram<u64>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(text) => super::decode(&text).map_err(D::Error::custom),
            // Empty: grows to whatever is added to it.
            None => Histogram::new(3).map_err(|e| D::Error::custom(format!("{e:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        values.iter().for_each(|v| h.record(*v).unwrap());
        h
    }

    #[test]
    fn a_histogram_survives_its_encoding_and_merges_exactly() {
        let a = of(&[100, 200, 300, 40_000]);
        assert_eq!(decode(&encode(&a)).unwrap(), a);
        let b = of(&[150, 250]);
        let sum = merged([encode(&a).as_str(), encode(&b).as_str()]).unwrap().unwrap();
        assert_eq!(sum, of(&[100, 200, 300, 40_000, 150, 250]));
        assert_eq!(sum.value_at_quantile(0.5), 200);
        assert_eq!(merged([]).unwrap(), None);
        assert!(decode("not a histogram").unwrap_err().starts_with("not base64"));
        assert!(decode("aGVsbG8=").unwrap_err().starts_with("not an HdrHistogram"));
    }
}
