//! crc32c of two byte runs joined, from their crcs and the second's length:
//! multiplication by x^(8·len) modulo the polynomial, with a table of
//! x^(2^k), as zlib 1.2.12+ does it (at most 64 shift-and-xor steps for a
//! 2 MiB length). The crc32c crate's combine squares 32x32 bit matrices two
//! dozen times per call (zlib's older method): 1.1-1.9% of the samples on
//! each side at one combine per 2 MiB message; this one is under 0.02%.

/// The CRC-32C (Castagnoli) polynomial, bit-reflected.
const POLY: u32 = 0x82f6_3b78;
/// x^0 in the reflected representation.
const ONE: u32 = 1 << 31;

/// a·b modulo the polynomial (reflected: the highest power is the lowest bit).
const fn multiply(a: u32, mut b: u32) -> u32 {
    let mut m = ONE;
    let mut product = 0;
    loop {
        if a & m != 0 {
            product ^= b;
            if a & (m - 1) == 0 {
                return product;
            }
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
}

/// X_POW_2K[k] = x^(2^k) modulo the polynomial, for every k a u64 byte
/// count needs (bits are k = 3..67). The powers do not cycle every 32 steps
/// for this polynomial, as they do for zlib's, so the table is not folded.
const X_POW_2K: [u32; 67] = {
    let mut table = [0; 67];
    let mut power = ONE >> 1; // x^1
    let mut k = 0;
    while k < table.len() {
        table[k] = power;
        power = multiply(power, power);
        k += 1;
    }
    table
};

/// x^(n·2^k) modulo the polynomial.
fn x_pow(mut n: u64, mut k: usize) -> u32 {
    let mut power = ONE;
    while n != 0 {
        if n & 1 != 0 {
            power = multiply(X_POW_2K[k], power);
        }
        n >>= 1;
        k += 1;
    }
    power
}

/// crc32c of `bytes`. crc-fast folds with AVX-512 VPCLMULQDQ where the CPU
/// has it: 0.025-0.029 s/GiB on this project's 2-vCPU VM against the crc32c
/// crate's 0.061-0.068 (its SSE4.2 instruction), the largest share of a
/// write's client CPU after the kernel's copy (docs/performance.md).
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(bytes)
}

/// crc32c(A ‖ B) from crc32c(A) and B's bytes: B's pass starts from A's
/// register (the crc before its final inversion).
pub fn crc32c_append(crc: u32, bytes: &[u8]) -> u32 {
    let mut digest = crc_fast::Digest::new_with_init_state(crc_fast::CrcAlgorithm::Crc32Iscsi, u64::from(!crc));
    digest.update(bytes);
    digest.finalize() as u32
}

/// GCS spells crc32c as base64 of the big-endian u32.
pub fn crc32c_base64(crc: u32) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(crc.to_be_bytes())
}

pub fn crc32c_from_base64(text: &str) -> Option<u32> {
    use base64::Engine;
    let raw = base64::engine::general_purpose::STANDARD.decode(text.trim()).ok()?;
    Some(u32::from_be_bytes(raw.try_into().ok()?))
}

/// crc32c(A ‖ B) from crc32c(A), crc32c(B) and B's length in bytes.
pub fn combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    multiply(x_pow(len_b, 3), crc_a) ^ crc_b // x^(8·len): shift A's crc past B's bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combining_equals_one_pass_over_both() {
        // Bytes no two of which line up with the polynomial's period.
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for split in [0, 1, 7, 8, 255, 2048, 4999, 5000] {
            let (a, b) = bytes.split_at(split);
            let joined = combine(crc32c::crc32c(a), crc32c::crc32c(b), b.len() as u64);
            assert_eq!(joined, crc32c::crc32c(&bytes), "split at {split}");
        }
    }

    #[test]
    fn one_pass_and_appends_agree_with_the_crc32c_crate() {
        // Lengths on either side of crc-fast's small-input and 4 KiB block paths.
        let bytes: Vec<u8> = (0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        for len in [0, 1, 15, 16, 63, 64, 255, 256, 4095, 4096, 4097, 65_536, 70_000] {
            let whole = &bytes[..len];
            assert_eq!(crc32c(whole), crc32c::crc32c(whole), "{len} bytes");
            for split in [0, 1, len / 3, len] {
                let (a, b) = whole.split_at(split.min(len));
                assert_eq!(crc32c_append(crc32c(a), b), crc32c::crc32c(whole), "{len} bytes split at {split}");
            }
        }
        assert_eq!(crc32c(b"123456789"), 0xe306_9283, "the catalogue's check value for CRC-32/ISCSI");
    }

    #[test]
    fn crc32c_base64_is_big_endian() {
        assert_eq!(crc32c_base64(0xc994_65aa), "yZRlqg==");
        assert_eq!(crc32c_from_base64("yZRlqg=="), Some(0xc994_65aa));
        assert_eq!(crc32c_from_base64("nope"), None);
    }

    #[test]
    fn large_lengths_agree_with_the_crc32c_crate() {
        for len in [2 << 20, 16 << 20, (1 << 30) + 3, 5 << 32] {
            assert_eq!(
                combine(0x1234_5678, 0x9abc_def0, len),
                crc32c::crc32c_combine(0x1234_5678, 0x9abc_def0, len as usize),
                "{len}"
            );
        }
    }
}
