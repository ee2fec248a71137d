//! Credentials in the forms particular tools give them: a passphrase on
//! `gpg`'s or `ssh-keygen`'s command line, `mongosh -p`, Oracle's
//! `user/password@//host`, an AWS key id with its secret beside it, a
//! Teams webhook's key, an authenticator's setup key, `nmcli`'s Wi-Fi
//! password, a wallet's private key.

use super::checks::{high_entropy, not_a_flag, not_a_placeholder_password};
use super::rule::Rule;

/// A passphrase on a command line, quoted, spaces and all: `gpg
/// --passphrase 'sunny needle valley maple'`, `ssh-keygen -p -P '…' -N
/// '…'` (an empty `''` is no passphrase).
pub(super) const PASSPHRASE_QUOTED: Rule = (
    r#"(?:--passphrase(?:=|\s+)|(?-u:\b)ssh-keygen\s[^\n|;&]*?\s-[PN]\s+)['"]([^'"\n]{3,})['"]"#,
    1,
    Some(not_a_placeholder_password),
    &["--passphrase", "ssh-keygen"],
);

/// `--passphrase VALUE` unquoted (`--passphrase-file` names a file).
pub(super) const PASSPHRASE_FLAG: Rule = (
    r#"--passphrase(?:=|\s+)([^\s"'$<{-][^\s"']{2,})"#,
    1,
    Some(not_a_flag),
    &["--passphrase"],
);

/// `mongo`/`mongosh` with `-p PASSWORD` (MySQL's glued `-pPASSWORD` is a
/// rule of its own).
pub(super) const MONGO_PASSWORD: Rule = (
    r#"(?-u:\b)mongo(?:sh)?(?-u:\b)[^\n|;&]*?\s(?:-p|--password)\s+["']?([^\s"'$<{-][^\s"']{2,})"#,
    1,
    Some(not_a_placeholder_password),
    &["mongo"],
);

/// Oracle's `user/password@//host` in `sqlplus` and JDBC thin URLs.
pub(super) const ORACLE_PASSWORD: Rule = (
    r"(?:(?-u:\b)sqlplus\s+|jdbc:oracle:thin:)[A-Za-z0-9_$#]+/([^@\s/]{3,})@",
    1,
    Some(not_a_placeholder_password),
    &["sqlplus", "jdbc:oracle"],
);

/// An AWS access key id with its secret right after it: `AKIA… /
/// wJalr…`, `AKIA…:…`, `AKIA…, …`.
pub(super) const AWS_KEY_PAIR: Rule = (
    r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}\s*[/:,]\s*([A-Za-z0-9/+=]{40})(?-u:\b)",
    1,
    Some(high_entropy),
    &["AKIA", "ASIA"],
);

/// A Microsoft Teams incoming webhook: its key follows `IncomingWebhook/`.
pub(super) const TEAMS_WEBHOOK: Rule = (
    r"webhook\.office\.com/webhookb2/[A-Za-z0-9@-]+/IncomingWebhook/([A-Za-z0-9]{20,})",
    1,
    None,
    &["webhook.office.com"],
);

/// An authenticator's setup key (TOTP), in base32, after the first colon
/// on a line that names it: `TOTP seed …: 6U3NIBSEXAU7DOFX7LPG2T3AWJUTBGI7`,
/// `… setup key: ptzn q2yg jtxd 5dp2 …`.
pub(super) const TOTP_SECRET: Rule = (
    r"(?i-u:totp|2fa|mfa|authenticator|otp)[^\n:：]*[:：]\s*((?:[a-z2-7]{4} ){3,15}[a-z2-7]{4}|(?:[A-Z2-7]{4} ){3,15}[A-Z2-7]{4}|[A-Z2-7]{16,64})(?:$|[^A-Za-z0-9_-])",
    1,
    Some(base32_secret),
    &["totp", "2fa", "mfa", "authenticator", "otp"],
);

/// Base32 as an authenticator's key is: letters with digits 2 to 7 among
/// them (a plain word in capitals is not one).
fn base32_secret(v: &str) -> bool {
    let v: String = v.chars().filter(|c| !c.is_whitespace()).collect();
    v.len() >= 16
        && v.bytes().any(|b| (b'2'..=b'7').contains(&b))
        && v.bytes().any(|b| b.is_ascii_alphabetic())
}

/// `nmcli … password "…"`: a Wi-Fi password, quoted, spaces and all.
pub(super) const NMCLI_QUOTED: Rule = (
    r#"(?-u:\b)nmcli\s[^\n|;&]*?\s(?:password|wifi-sec\.psk)\s+["']([^"'\n]{3,})["']"#,
    1,
    Some(not_a_placeholder_password),
    &["nmcli"],
);

/// `nmcli … password WORD`.
pub(super) const NMCLI_WORD: Rule = (
    r#"(?-u:\b)nmcli\s[^\n|;&]*?\s(?:password|wifi-sec\.psk)\s+([^\s"'$<{][^\s"']{2,})"#,
    1,
    Some(not_a_placeholder_password),
    &["nmcli"],
);

/// A wallet's private key on a line that names one: 64 hex digits (an
/// Ethereum key, `0x` or not), a WIF key (`5…`, `K…`, `L…`, base58), or
/// a Solana keypair (base58, 87 or 88 characters). A transaction's hash
/// has the same 64 hex digits, so the line must say "private" or "key"
/// in one of the wallets' languages, or hand it to `Wallet(`.
pub(super) const WALLET_KEY: Rule = (
    concat!(
        r"(?:(?i-u:private|priv|wallet\(|keypair|secret key)|(?i:klucz prywatny|özel anahtar|privésleutel|privater schlüssel|clé privée|clave privada|chave privada|chiave privata|приватный ключ)|秘密鍵|秘钥|私钥|개인키|개인 키)",
        r"[^\n]*?(?:^|[^A-Za-z0-9_-])",
        r"((?:0x)?[0-9a-fA-F]{64}|[5KL][1-9A-HJ-NP-Za-km-z]{50,51}|[1-9A-HJ-NP-Za-km-z]{86,88})",
        r"(?:$|[^A-Za-z0-9_-])"
    ),
    1,
    Some(high_entropy),
    // `priv` is also the anchor of `private`, `privésleutel` and
    // `privater Schlüssel`.
    &[
        "priv",
        "wallet(",
        "keypair",
        "secret key",
        "klucz prywatny",
        "özel anahtar",
        "clé privée",
        "clave privada",
        "chave privada",
        "chiave privata",
        "приватный ключ",
        "秘密鍵",
        "秘钥",
        "私钥",
        "개인키",
        "개인 키",
    ],
);

/// A BIP-32 extended private key (`xprv…`, `tprv…`, `yprv…`, `zprv…`):
/// its prefix says what it is.
pub(super) const EXTENDED_PRIVATE_KEY: Rule = (
    r"(?-u:\b)([xtyzuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112})(?-u:\b)",
    1,
    None,
    &["prv"],
);

/// An Airtable personal access token (`pat` + 14, a dot, 64 hex): its
/// own rule, as `pat` begins too many words to anchor the published
/// formats' large one (a one-entry `checkpoint` paid 2 ms for it).
pub(super) const AIRTABLE_TOKEN: Rule = (
    r"(?-u:\b)(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})(?-u:\b)",
    1,
    None,
    &["pat"],
);

/// An Asana personal access token (`2/…/…:` + 32 hex) on a line that
/// names Asana: its shape alone has no literal to anchor it.
pub(super) const ASANA_TOKEN: Rule = (
    r"(?i-u:asana)[^\n]*?(?:^|[^A-Za-z0-9_-])([0-9]/[0-9]{10,20}/[0-9]{10,20}:[a-f0-9]{32})(?:$|[^A-Za-z0-9_-])",
    1,
    None,
    &["asana"],
);
