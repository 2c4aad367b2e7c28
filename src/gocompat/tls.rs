//! Go's `tls.X509KeyPair` check, which `kubectl create secret tls` runs on its `--cert` and
//! `--key`: PEM blocks found as Go finds them, the certificate's public key read from its DER,
//! and the private key (PKCS #1, PKCS #8 or SEC 1) matched against it, each failure in Go's words.
//! A key whose public half cannot be told without computing it (an EC or Ed25519 key stored
//! without it) is accepted: the server decides, as for anything this check cannot.
//!
//! And Go's words for a server certificate that its TLS client does not accept, which kubectl
//! prints after `Unable to connect to the server: `.

use base64::Engine as _;

/// A PEM block: its type and decoded bytes.
struct Block {
    kind: String,
    der: Vec<u8>,
}

/// The PEM blocks of `text`, in order; a block whose body is not base64 is left out, as Go's
/// `pem.Decode` skips what it cannot read.
fn blocks(text: &[u8]) -> Vec<Block> {
    let text = String::from_utf8_lossy(text);
    let mut found = Vec::new();
    let mut rest: &str = &text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + "-----BEGIN ".len()..];
        let Some(type_end) = after.find("-----") else { break };
        let kind = after[..type_end].to_string();
        let body_start = &after[type_end + 5..];
        let end_marker = format!("-----END {kind}-----");
        let Some(end) = body_start.find(&end_marker) else { break };
        let body: String = body_start[..end]
            .lines()
            .filter(|line| !line.contains(':'))
            .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
            .collect();
        if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(body) {
            found.push(Block { kind, der });
        }
        rest = &body_start[end + end_marker.len()..];
    }
    found
}

/// One DER element: its tag and contents.
#[derive(Clone, Copy)]
struct Element<'a> {
    tag: u8,
    content: &'a [u8],
}

/// The DER elements one after the other in `bytes`; `None` if they are not well formed.
fn elements(mut bytes: &[u8]) -> Option<Vec<Element<'_>>> {
    let mut found = Vec::new();
    while !bytes.is_empty() {
        let tag = bytes[0];
        let first = *bytes.get(1)?;
        let (length, header) = if first < 0x80 {
            (first as usize, 2)
        } else {
            let count = (first & 0x7f) as usize;
            if count == 0 || count > 4 {
                return None;
            }
            let length = bytes.get(2..2 + count)?.iter().fold(0usize, |n, b| (n << 8) | *b as usize);
            (length, 2 + count)
        };
        let content = bytes.get(header..header + length)?;
        found.push(Element { tag, content });
        bytes = &bytes[header + length..];
    }
    Some(found)
}

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const BIT_STRING: u8 = 0x03;
const OCTET_STRING: u8 = 0x04;
const OID: u8 = 0x06;

const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// A public key, or what a private key tells of its public half.
#[derive(Debug, PartialEq)]
enum Key {
    /// An RSA modulus (leading zero bytes removed).
    Rsa(Vec<u8>),
    /// An EC point, as the certificate writes it; `None` when the private key does not hold it.
    Ec(Option<Vec<u8>>),
    /// An Ed25519 public key; `None` when the private key does not hold it.
    Ed25519(Option<Vec<u8>>),
    Other,
}

fn unsigned(integer: &[u8]) -> Vec<u8> {
    let start = integer.iter().position(|b| *b != 0).unwrap_or(integer.len());
    integer[start..].to_vec()
}

fn one(bytes: &[u8], tag: u8) -> Option<Vec<Element<'_>>> {
    match elements(bytes)?.as_slice() {
        [element] if element.tag == tag => elements(element.content),
        _ => None,
    }
}

/// A BIT STRING's bits (without the count of unused bits).
fn bits(element: &Element<'_>) -> Option<Vec<u8>> {
    (element.tag == BIT_STRING).then(|| element.content.get(1..).map(<[u8]>::to_vec)).flatten()
}

/// The public key of a DER certificate; `None` when the certificate is malformed.
fn certificate_key(der: &[u8]) -> Option<Key> {
    let certificate = one(der, SEQUENCE)?;
    let tbs = elements(certificate.first().filter(|e| e.tag == SEQUENCE)?.content)?;
    // [0] version is optional; then serial, signature, issuer, validity, subject, key info.
    let skip = usize::from(tbs.first()?.tag == 0xa0);
    let info = tbs.get(skip + 5).filter(|e| e.tag == SEQUENCE)?;
    let info = elements(info.content)?;
    let algorithm = elements(info.first().filter(|e| e.tag == SEQUENCE)?.content)?;
    let oid = algorithm.first().filter(|e| e.tag == OID)?.content;
    let key = bits(info.get(1)?)?;
    Some(match oid {
        RSA => Key::Rsa(unsigned(one(&key, SEQUENCE)?.first().filter(|e| e.tag == INTEGER)?.content)),
        EC => Key::Ec(Some(key)),
        ED25519 => Key::Ed25519(Some(key)),
        _ => Key::Other,
    })
}

/// What a private key's DER tells of its public half, trying PKCS #1, PKCS #8 and SEC 1 in Go's
/// order; `None` when it is none of them.
fn private_key(der: &[u8]) -> Option<Key> {
    let fields = one(der, SEQUENCE)?;
    match fields.as_slice() {
        // PKCS #1: version, modulus, public exponent, ...
        [version, modulus, exponent, ..]
            if version.tag == INTEGER && modulus.tag == INTEGER && exponent.tag == INTEGER =>
        {
            Some(Key::Rsa(unsigned(modulus.content)))
        }
        // PKCS #8: version, algorithm, the key in an OCTET STRING, then optional fields.
        [version, algorithm, key, rest @ ..]
            if version.tag == INTEGER && algorithm.tag == SEQUENCE && key.tag == OCTET_STRING =>
        {
            let algorithm = elements(algorithm.content)?;
            match algorithm.first().filter(|e| e.tag == OID)?.content {
                RSA => match private_key(key.content)? {
                    rsa @ Key::Rsa(_) => Some(rsa),
                    _ => None,
                },
                EC => match private_key(key.content)? {
                    ec @ Key::Ec(_) => Some(ec),
                    _ => None,
                },
                ED25519 => {
                    let public = rest.iter().find(|e| e.tag == 0x81 || e.tag == 0xa1).and_then(|e| {
                        if e.tag == 0x81 {
                            e.content.get(1..).map(<[u8]>::to_vec)
                        } else {
                            bits(elements(e.content)?.first()?)
                        }
                    });
                    Some(Key::Ed25519(public))
                }
                _ => Some(Key::Other),
            }
        }
        // SEC 1: version 1, the key, [0] parameters, [1] the public point.
        [version, key, rest @ ..] if version.tag == INTEGER && key.tag == OCTET_STRING => {
            let public = rest.iter().find(|e| e.tag == 0xa1).and_then(|e| bits(elements(e.content)?.first()?));
            Some(Key::Ec(public))
        }
        _ => None,
    }
}

/// Go's `tls.X509KeyPair(cert, key)` verdict, in its words.
pub fn check_key_pair(cert: &[u8], key: &[u8]) -> Result<(), String> {
    let cert_blocks = blocks(cert);
    let (certificates, skipped): (Vec<&Block>, Vec<&Block>) = cert_blocks.iter().partition(|b| b.kind == "CERTIFICATE");
    let skipped: Vec<&str> = skipped.iter().map(|b| b.kind.as_str()).collect();
    let Some(certificate) = certificates.first() else {
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in certificate input".to_string(),
            [one] if one.ends_with("PRIVATE KEY") => "tls: failed to find certificate PEM data in certificate input, \
                                                      but did find a private key; PEM inputs may have been switched"
                .to_string(),
            types => format!(
                "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the \
                 following types: [{}]",
                types.join(" ")
            ),
        });
    };
    let key_blocks = blocks(key);
    let private = key_blocks.iter().find(|b| b.kind == "PRIVATE KEY" || b.kind.ends_with(" PRIVATE KEY"));
    let Some(private) = private else {
        let skipped: Vec<&str> = key_blocks.iter().map(|b| b.kind.as_str()).collect();
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in key input".to_string(),
            ["CERTIFICATE"] => "tls: found a certificate rather than a key in the PEM for the private key".to_string(),
            types => format!(
                "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM \
                 blocks of the following types: [{}]",
                types.join(" ")
            ),
        });
    };
    let public = certificate_key(&certificate.der).ok_or("x509: malformed certificate")?;
    let private = private_key(&private.der).ok_or("tls: failed to parse private key")?;
    let mismatch = || Err("tls: private key does not match public key".to_string());
    match (public, private) {
        (Key::Rsa(n), Key::Rsa(m)) => {
            if n == m {
                Ok(())
            } else {
                mismatch()
            }
        }
        (Key::Ec(Some(a)), Key::Ec(b)) | (Key::Ed25519(Some(a)), Key::Ed25519(b)) => match b {
            Some(b) if a != b => mismatch(),
            _ => Ok(()),
        },
        (Key::Other, _) => Err("tls: unknown public key algorithm".to_string()),
        (_, Key::Other) => Err("tls: found unknown private key type in PKCS#8 wrapping".to_string()),
        _ => Err("tls: private key type does not match public key type".to_string()),
    }
}

/// Why a server's certificate is not accepted, as the TLS library found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateFailure<'a> {
    /// No trusted authority signed it.
    UnknownAuthority,
    /// It is not for `host`; `presented` are the names of its subjectAltName extension, each
    /// as `DnsName("NAME")` or `IpAddress(ADDRESS)` (others are left out).
    NotForHost { host: &'a str, presented: &'a [String] },
    /// The time (`now`, seconds since the epoch) is after its `notAfter` (`expired`) or before its
    /// `notBefore`, `bound`.
    OutsideValidity { now: u64, bound: u64, expired: bool },
}

/// Go's error for a server certificate that fails verification: `tls: failed to verify
/// certificate: x509: ...`, as crypto/tls and crypto/x509 word it.
pub fn verification_error(failure: &CertificateFailure<'_>) -> String {
    let x509 = match failure {
        CertificateFailure::UnknownAuthority => "x509: certificate signed by unknown authority".to_string(),
        CertificateFailure::NotForHost { host, presented } => {
            let host_is_ip = host.parse::<std::net::IpAddr>().is_ok();
            let names: Vec<String> = presented
                .iter()
                .filter_map(|name| {
                    if let Some(dns) = name.strip_prefix("DnsName(\"").and_then(|rest| rest.strip_suffix("\")")) {
                        return (!host_is_ip).then(|| dns.to_string());
                    }
                    let ip = name.strip_prefix("IpAddress(").and_then(|rest| rest.strip_suffix(')'))?;
                    // Go prints addresses in their shortest form.
                    host_is_ip.then(|| ip.parse::<std::net::IpAddr>().map_or(ip.to_string(), |ip| ip.to_string()))
                })
                .collect();
            match (host_is_ip, names.is_empty()) {
                (true, true) => {
                    format!("x509: cannot validate certificate for {host} because it doesn't contain any IP SANs")
                }
                (false, true) => format!("x509: certificate is not valid for any names, but wanted to match {host}"),
                (_, false) => format!("x509: certificate is valid for {}, not {host}", names.join(", ")),
            }
        }
        CertificateFailure::OutsideValidity { now, bound, expired } => {
            let time =
                |seconds: u64| super::time::timestamp(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds));
            let relation = if *expired { "after" } else { "before" };
            format!(
                "x509: certificate has expired or is not yet valid: current time {} is {relation} {}",
                time(*now),
                time(*bound)
            )
        }
    };
    format!("tls: failed to verify certificate: {x509}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_failures_read_as_go_words_them() {
        assert_eq!(
            verification_error(&CertificateFailure::UnknownAuthority),
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
        );
        let presented = [
            "DnsName(\"kubernetes\")".to_string(),
            "DnsName(\"kubernetes.default\")".to_string(),
            "IpAddress(10.96.0.1)".to_string(),
            "IpAddress(127.0.0.1)".to_string(),
        ];
        assert_eq!(
            verification_error(&CertificateFailure::NotForHost { host: "example.test", presented: &presented }),
            "tls: failed to verify certificate: x509: certificate is valid for kubernetes, kubernetes.default, not example.test"
        );
        assert_eq!(
            verification_error(&CertificateFailure::NotForHost { host: "127.0.0.2", presented: &presented }),
            "tls: failed to verify certificate: x509: certificate is valid for 10.96.0.1, 127.0.0.1, not 127.0.0.2"
        );
        assert_eq!(
            verification_error(&CertificateFailure::NotForHost { host: "127.0.0.2", presented: &presented[..2] }),
            "tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.2 because it doesn't contain any IP SANs"
        );
        assert_eq!(
            verification_error(&CertificateFailure::OutsideValidity {
                now: 1_764_900_000,
                bound: 1_700_000_000,
                expired: true
            }),
            "tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time \
             2025-12-05T02:00:00Z is after 2023-11-14T22:13:20Z"
        );
    }

    const RSA_CERT: &[u8] = include_bytes!("../../testdata/tls/rsa.crt");
    const RSA_KEY: &[u8] = include_bytes!("../../testdata/tls/rsa-pkcs1.key");
    const OTHER_KEY: &[u8] = include_bytes!("../../testdata/tls/other-rsa.key");
    const EC_CERT: &[u8] = include_bytes!("../../testdata/tls/ec.crt");
    const EC_KEY: &[u8] = include_bytes!("../../testdata/tls/ec.key");

    #[test]
    fn pairs_match_by_their_public_halves() {
        assert_eq!(check_key_pair(RSA_CERT, RSA_KEY), Ok(()));
        assert_eq!(check_key_pair(EC_CERT, EC_KEY), Ok(()));
        assert_eq!(check_key_pair(RSA_CERT, OTHER_KEY).unwrap_err(), "tls: private key does not match public key");
        assert_eq!(
            check_key_pair(EC_CERT, RSA_KEY).unwrap_err(),
            "tls: private key type does not match public key type"
        );
        assert_eq!(check_key_pair(b"", RSA_KEY).unwrap_err(), "tls: failed to find any PEM data in certificate input");
        assert_eq!(
            check_key_pair(RSA_CERT, RSA_CERT).unwrap_err(),
            "tls: found a certificate rather than a key in the PEM for the private key"
        );
    }
}
