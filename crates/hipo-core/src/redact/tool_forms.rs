//! Credentials in the forms particular tools give them: a passphrase on
//! `gpg`'s or `ssh-keygen`'s command line, `mongosh -p`, Oracle's
//! `user/password@//host`, an AWS key id with its secret beside it, a
//! Teams webhook's key, an authenticator's setup key.

use super::checks::{high_entropy, not_a_flag, not_a_placeholder_password};
use super::rules::Rule;

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
