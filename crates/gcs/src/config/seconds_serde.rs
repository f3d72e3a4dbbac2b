//! Durations in reports: seconds as a number, written and read back.

/// Durations are seconds in reports.
pub mod seconds {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let seconds = <f64 as serde::Deserialize>::deserialize(d)?;
        Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom)
    }
}

pub mod optional_seconds {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::seconds::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let seconds = <Option<f64> as serde::Deserialize>::deserialize(d)?;
        seconds.map(|s| Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom)).transpose()
    }
}
