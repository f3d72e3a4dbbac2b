//! RS256 JSON Web Tokens, as service-account keys sign them: the assertion
//! of the JWT-bearer grant, or a self-signed JWT used as the access token.
//! Verified with the public half of a key the emulator was told to trust.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A service account the emulator trusts: its e-mail, key id and public key.
#[derive(Clone, Debug)]
pub struct TrustedKey {
    pub email: String,
    pub key_id: String,
    /// The RSAPublicKey, DER.
    pub public_key: Vec<u8>,
}

impl TrustedKey {
    /// From a service-account key file's `client_email`, `private_key_id`
    /// and `private_key` (PKCS#8 PEM): the public half is kept, not the key.
    pub fn from_key_file(key: &serde_json::Value) -> Result<TrustedKey, String> {
        use rustls::pki_types::PrivatePkcs8KeyDer;
        use rustls::pki_types::pem::PemObject;
        let field = |name: &str| key[name].as_str().ok_or(format!("the key file has no {name}"));
        let pem = field("private_key")?;
        let der = PrivatePkcs8KeyDer::from_pem_slice(pem.as_bytes())
            .map_err(|e| format!("its private_key is not a PKCS#8 PEM key: {e}"))?;
        let pair = ring::rsa::KeyPair::from_pkcs8(der.secret_pkcs8_der())
            .map_err(|e| format!("its private_key is not an RSA key: {e}"))?;
        use ring::signature::KeyPair;
        Ok(TrustedKey {
            email: field("client_email")?.to_string(),
            key_id: key["private_key_id"].as_str().unwrap_or_default().to_string(),
            public_key: pair.public_key().as_ref().to_vec(),
        })
    }
}

/// A token's claims once its signature checked out, and who signed it.
#[derive(Debug)]
pub struct Verified {
    pub signer: TrustedKey,
    pub claims: serde_json::Value,
}

/// Checks the signature of `token` (header.claims.signature) against the
/// trusted key its `iss` names; says what is wrong otherwise.
pub fn verify(token: &str, trusted: &[TrustedKey]) -> Result<Verified, String> {
    let mut parts = token.split('.');
    let (Some(header), Some(claims), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("not a JWT".into());
    };
    // Some signers pad their base64url (gcp_auth does): padding carries nothing.
    let decode = |part: &str| {
        URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).map_err(|_| "a JWT part is not base64url".to_string())
    };
    let header: serde_json::Value =
        serde_json::from_slice(&decode(header)?).map_err(|_| "the JWT header is not JSON".to_string())?;
    if header["alg"] != "RS256" {
        return Err(format!("the JWT is signed with {}, not RS256", header["alg"]));
    }
    let claims: serde_json::Value =
        serde_json::from_slice(&decode(claims)?).map_err(|_| "the JWT claims are not JSON".to_string())?;
    let issuer = claims["iss"].as_str().unwrap_or_default();
    let signer = trusted
        .iter()
        .find(|k| k.email == issuer)
        .ok_or_else(|| format!("no trusted key for {issuer:?}: this emulator was not given that service account"))?;
    let signed = &token[..token.rfind('.').unwrap_or(0)];
    ring::signature::UnparsedPublicKey::new(&ring::signature::RSA_PKCS1_2048_8192_SHA256, &signer.public_key)
        .verify(signed.as_bytes(), &decode(signature)?)
        .map_err(|_| format!("the JWT's signature does not verify with the key of {issuer}: a wrong or revoked key"))?;
    Ok(Verified { signer: signer.clone(), claims })
}

/// `iat` and `exp` make sense now (within a minute of clock skew, at most an
/// hour long, as Google's token endpoint requires).
pub fn check_times(claims: &serde_json::Value, now_s: u64) -> Result<(), String> {
    let (Some(iat), Some(exp)) = (claims["iat"].as_u64(), claims["exp"].as_u64()) else {
        return Err("the JWT has no iat or exp".into());
    };
    const SKEW_S: u64 = 60;
    if iat > now_s + SKEW_S {
        return Err("the JWT was issued in the future (iat): check this machine's clock".into());
    }
    if exp <= now_s {
        return Err("the JWT has expired (exp)".into());
    }
    if exp.saturating_sub(iat) > 3600 {
        return Err("the JWT is valid for more than an hour (exp - iat)".into());
    }
    Ok(())
}

/// The scope claim grants Cloud Storage (devstorage.* or cloud-platform).
pub fn grants_storage(scope: &str) -> bool {
    scope.split_whitespace().any(|s| {
        s.starts_with("https://www.googleapis.com/auth/devstorage.")
            || s == "https://www.googleapis.com/auth/cloud-platform"
    })
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Signs claims with a PKCS#8 RSA key, as a service-account library would.
    pub fn sign(claims: &serde_json::Value, pkcs8_pem: &str) -> String {
        use rustls::pki_types::PrivatePkcs8KeyDer;
        use rustls::pki_types::pem::PemObject;
        let der = PrivatePkcs8KeyDer::from_pem_slice(pkcs8_pem.as_bytes()).unwrap();
        let pair = ring::rsa::KeyPair::from_pkcs8(der.secret_pkcs8_der()).unwrap();
        let head = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(claims.to_string());
        let message = format!("{head}.{body}");
        let mut signature = vec![0; pair.public().modulus_len()];
        pair.sign(
            &ring::signature::RSA_PKCS1_SHA256,
            &ring::rand::SystemRandom::new(),
            message.as_bytes(),
            &mut signature,
        )
        .unwrap();
        format!("{message}.{}", URL_SAFE_NO_PAD.encode(signature))
    }

    const KEY: &str = include_str!("../../../tests/data/test-key.pem");

    fn key_file() -> serde_json::Value {
        serde_json::json!({"client_email": "sa@p.iam.gserviceaccount.com", "private_key_id": "k1", "private_key": KEY})
    }

    #[test]
    fn a_token_signed_by_a_trusted_key_verifies_and_a_changed_one_does_not() {
        let trusted = [TrustedKey::from_key_file(&key_file()).unwrap()];
        let claims = serde_json::json!({"iss": "sa@p.iam.gserviceaccount.com", "iat": 1000, "exp": 2000});
        let token = sign(&claims, KEY);
        let verified = verify(&token, &trusted).unwrap();
        assert_eq!((verified.signer.key_id.as_str(), &verified.claims), ("k1", &claims));
        // The same signature over other claims.
        let mut parts: Vec<String> = token.split('.').map(String::from).collect();
        parts[1] =
            URL_SAFE_NO_PAD.encode(serde_json::json!({"iss": "sa@p.iam.gserviceaccount.com", "exp": 9999}).to_string());
        let forged = parts.join(".");
        assert!(verify(&forged, &trusted).unwrap_err().contains("does not verify"), "a changed claim");
        let stranger = sign(&serde_json::json!({"iss": "other@p"}), KEY);
        assert!(verify(&stranger, &trusted).unwrap_err().contains("no trusted key for \"other@p\""));
        assert_eq!(verify("abc", &trusted).unwrap_err(), "not a JWT");
    }

    #[test]
    fn times_and_scopes_are_checked() {
        let at = |iat: u64, exp: u64| serde_json::json!({"iat": iat, "exp": exp});
        assert!(check_times(&at(1000, 4600), 1500).is_ok());
        assert!(check_times(&at(1000, 1400), 1500).unwrap_err().contains("expired"));
        assert!(check_times(&at(2000, 3000), 1500).unwrap_err().contains("future"));
        assert!(check_times(&at(1000, 5000), 1500).unwrap_err().contains("more than an hour"));
        assert!(grants_storage("openid https://www.googleapis.com/auth/devstorage.read_write"));
        assert!(grants_storage("https://www.googleapis.com/auth/cloud-platform"));
        assert!(!grants_storage("https://www.googleapis.com/auth/userinfo.email"));
    }
}
