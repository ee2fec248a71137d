//! The secret formats: one rule a line, the published formats first
//! (gitleaks' rule set is the reference), then key/value assignments and
//! command-line flags, each with the check that keeps prose intact.

use super::checks::{
    credential_not_code, high_entropy, key_like, looks_like_credential, not_a_flag,
    not_a_number_nor_a_word, not_a_placeholder_password, random_not_uuid,
};
use super::rule::Rule;

/// A secret-ish key name, as a regex fragment shared by the key/value
/// patterns: a known key (`api_key`, `password`, …) with an optional
/// identifier prefix in one of the usual spellings: `DB_PASS`,
/// `my-token`, `PGPASSWORD` (all capitals), `dbPassword` (camelCase).
/// Prose words that merely end in one (`bypass`, `compass`) are not keys.
macro_rules! key {
    () => {
        r"(?:(?-u:\b)(?:[A-Za-z0-9]*[_-])*(?i-u:api[_-]?key|apikey|private[_-]?key|secret[_-]?key|password|passwd|pass|pwd|secret|token)|(?-u:\b)[A-Z0-9]+(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN)|(?-u:\b)[a-z][a-zA-Z0-9]*(?:Password|Passwd|Pass|Pwd|Secret|Token|ApiKey))(?-u:\b)"
    };
}

/// The key names of the key/value rules ([`key!`] and the shell
/// assignment): `api_key`, `password`, `pwd`, `secret`, `token`, …
const KEY_NAMES: &[&str] = &["key", "pass", "pwd", "secret", "token"];

pub(super) const PATTERNS: &[Rule] = &[
    // OpenSSH / RSA / EC / DSA / PGP private key blocks, whole.
    (
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        0,
        None,
        &["PRIVATE KEY"],
    ),
    // Credentials in URLs: scheme://user:password@host, the user possibly
    // empty (`redis://:pw@cache`). The password runs to the last `@` before
    // the host (`p@ss@db`), as libpq and curl read it.
    (
        r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:([^\s/?\[]+)@",
        1,
        Some(not_a_placeholder_password),
        &["://"],
    ),
    // An AWS key id with its secret beside it, before the id's own rule
    // redacts the id and hides the pair: see [`super::tool_forms`].
    super::tool_forms::AWS_KEY_PAIR,
    // AWS access key ids.
    (
        r"(?-u:\b)((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?-u:\b)",
        1,
        None,
        &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
    ),
    // AWS secret access keys (40 chars after a telling key name, in any
    // spelling: `aws_secret_access_key = …`, `"SecretAccessKey": "…"` as
    // the AWS CLI prints it, `AWS_SECRET_ACCESS_KEY: …`).
    (
        r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)["']?\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})(?-u:\b)"#,
        1,
        None,
        &["secret"],
    ),
    // Azure storage and Service Bus connection strings, and SAS signatures.
    (
        r"(?i)(?-u:\b)(?:AccountKey|SharedAccessKey|SharedSecretValue)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})",
        1,
        None,
        &["AccountKey", "SharedAccessKey", "SharedSecretValue"],
    ),
    (
        r"[?&]sig=([A-Za-z0-9%+/]{20,}(?:=|%3[dD]){0,2})",
        1,
        None,
        &["sig="],
    ),
    // Passwords on command lines: `--password=…` (anything but a
    // variable), `--password …` / `--token …` (if it looks like one),
    // `mysql -pS3cret`, `sshpass -p …`, `redis-cli -a …`, `curl -u user:pass`.
    (
        r#"(?:^|[\s"'])--(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key)=["']?([^\s"'$<{\[(-][^\s"']{2,})"#,
        1,
        Some(not_a_flag),
        &["--"],
    ),
    (
        r#"(?:^|[\s"'])--(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key)\s+["']?([^\s"'$<{\[(-][^\s"']{3,})"#,
        1,
        Some(looks_like_credential),
        &["--"],
    ),
    (
        r#"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]*?\s-p["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["mysql", "mariadb"],
    ),
    (
        r#"(?-u:\b)(?:sshpass\s+-p|redis-cli(?-u:\b)[^\n|;&]*?\s-a)\s*["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["sshpass", "redis-cli"],
    ),
    (
        r#"(?:^|\s)(?:-u|--user)[ =]?["']?[^\s:"'@/$]+:([^\s"'@$<{][^\s"'@]{2,})"#,
        1,
        Some(not_a_number_nor_a_word),
        &["-u"],
    ),
    // Stripe live/test secret and restricted keys.
    (
        r"(?-u:\b)((?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{10,})",
        1,
        None,
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
    ),
    // Slack tokens: `xox?-` (xoxa, xoxb, xoxe, xoxp, …).
    (
        r"(?-u:\b)(xox[A-Za-z]-[0-9A-Za-z-]{10,})",
        1,
        None,
        &["xox"],
    ),
    // Slack and Discord webhook URLs: the last path segment is the secret.
    (
        r"(?-u:\b)hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]+/[A-Za-z0-9]+/([A-Za-z0-9]{16,})",
        1,
        None,
        &["hooks.slack.com"],
    ),
    (
        r"(?-u:\b)discord(?:app)?\.com/api/webhooks/[0-9]+/([A-Za-z0-9_-]{20,})",
        1,
        None,
        &["/api/webhooks/"],
    ),
    // Google API keys.
    (r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})", 1, None, &["AIza"]),
    // Firebase Cloud Messaging server keys.
    (
        r"(?-u:\b)(AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140})",
        1,
        None,
        &["AAAA"],
    ),
    // Tokens with a published prefix: see [`super::published`].
    super::published::RULE,
    // Azure AD (Entra) client secrets: three characters, a digit, `Q~`,
    // 31 to 34 more. Redacted from the digit on: matching the three
    // leading characters too kept a counter alive inside every word, and
    // with the entropy rule's names that doubled the prefilter set's time
    // on clean text.
    (r"([0-9]Q~[A-Za-z0-9_~.-]{31,34})", 1, None, &["Q~"]),
    // Telegram bot tokens: the bot's id, a colon, 35 characters (in an
    // API URL, right after `/bot`).
    (
        r"(?:(?-u:\b)|bot)([0-9]{5,16}:A[A-Za-z0-9_-]{34})(?-u:\b)",
        1,
        None,
        &[":A"],
    ),
    // Discord bot tokens: the bot's id in base64 (an id's leading digit
    // encodes as `M`, `N` or `O`, the next as `D`, `T`, `j` or `z`), a dot,
    // six characters of timestamp, a dot, 27 to 38 of signature.
    (
        r"(?-u:\b)([MNO][DTjz][A-Za-z0-9_-]{21,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?-u:\b)",
        1,
        None,
        &["MD", "MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"],
    ),
    // Atlassian API tokens of the older 24-character kind, next to a
    // telling name.
    (
        r#"(?i)(?:atlassian|confluence|jira)[a-z0-9_.-]{0,20}["']?\s*[:=]\s*["']?([a-z0-9]{24})(?-u:\b)"#,
        1,
        None,
        &["atlassian", "confluence", "jira"],
    ),
    // A Sentry DSN: its key is the user part of the URL.
    (
        r"(?i)(?-u:\b)https?://([a-f0-9]{32})(?::[a-f0-9]{32})?@",
        1,
        None,
        &["://"],
    ),
    // JSON Web Tokens.
    (
        r"(?-u:\b)(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        1,
        None,
        &["eyJ"],
    ),
    // GitHub tokens (classic, OAuth, server, user, refresh, fine-grained).
    (
        r"(?-u:\b)((?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        1,
        None,
        &["ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"],
    ),
    // OpenAI / Anthropic style keys (long enough not to be `sk-learn`).
    // A path like `docs/sk-learn-pipeline-notes.md` is words, not a key.
    (
        r"(?-u:\b)(sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})",
        1,
        Some(looks_like_credential),
        &["sk-"],
    ),
    // Bearer tokens in headers.
    (
        r"(?i)(?-u:\b)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)",
        1,
        None,
        &["bearer"],
    ),
    // Basic credentials in headers (base64 of user:password), as sent
    // or as a proxy's config sets them (`Authorization "Basic …"`).
    (
        r#"(?-u:\b)(?i-u:authorization)["']?\s*[:=]?\s*["']?(?i-u:basic)\s+([A-Za-z0-9+/]{8,}={0,2})"#,
        1,
        Some(looks_like_credential),
        &["authorization"],
    ),
    // A secret in an XML element (Maven's settings.xml, Tomcat, .NET).
    (
        r"<(?i-u:password|passwd|secret|token|api[_-]?key|apikey|client[_-]?secret|access[_-]?key)>([^<\s]{3,})</",
        1,
        Some(not_a_placeholder_password),
        &["password>", "passwd>", "secret>", "token>", "key>"],
    ),
    // A key in a URL's query (`?appid=…`, `&access_token=…`): random only.
    (
        r"[?&](?i-u:appid|app_id|api_?key|access_?token|auth_?token|token|key|client_?secret|secret|password|pwd)=([A-Za-z0-9._~%+/-]{16,})",
        1,
        Some(key_like),
        &[
            "appid=",
            "app_id=",
            "key=",
            "token=",
            "secret=",
            "password=",
            "pwd=",
        ],
    ),
    // Go's MySQL DSN: `user:password@tcp(host:port)/db`.
    (
        r#"(?-u:\b)[A-Za-z0-9_.-]+:([^\s:@/"'()]{3,})@(?:tcp|unix)\("#,
        1,
        Some(not_a_placeholder_password),
        &["@tcp(", "@unix("],
    ),
    // Command lines that take a password after a login: `htpasswd -b
    // FILE USER PASS`, `ldapsearch … -w PASS`, `smbclient -U user%PASS`,
    // `az login … -p PASS`, `wandb login KEY`.
    (
        r"(?-u:\b)htpasswd\s+(?:-[A-Za-z]+\s+)*?-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*\S+\s+\S+\s+(\S{3,})",
        1,
        Some(not_a_flag),
        &["htpasswd"],
    ),
    (
        r#"(?-u:\b)ldap[a-z]*\s[^\n|;&]*?\s-w\s+["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["ldap"],
    ),
    (r#"\s-U\s+["']?[^\s%"']+%([^\s"']{3,})"#, 1, None, &["-U"]),
    (
        r#"(?-u:\b)az\s+login\s[^\n|;&]*?\s-p\s+["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["az login"],
    ),
    (
        r"(?-u:\b)wandb\s+login\s+([0-9a-f]{40})(?-u:\b)",
        1,
        None,
        &["wandb"],
    ),
    // A user and password in code: `auth=("api", "…")`, PowerShell's
    // `ConvertTo-SecureString "…"`.
    (
        r#"(?-u:\b)auth\s*=\s*\(\s*["'][^"'\n]*["']\s*,\s*["']([^"'\n]{3,})["']"#,
        1,
        Some(not_a_placeholder_password),
        &["auth"],
    ),
    (
        r#"(?i-u:ConvertTo-SecureString)\s+(?:(?i-u:-String)\s+)?["']([^"'\n]{3,})["']"#,
        1,
        None,
        &["ConvertTo-SecureString"],
    ),
    // Session cookies: whoever holds one is logged in.
    (
        r#"(?:^|[;\s"'`])(?:__Host-|__Secure-)?(?:(?:[a-z0-9_]*[_.])?(?i-u:sid|connect\.sid|remember_token)|[A-Za-z0-9_.-]*(?i-u:session|sessid|logged_in|oauth2_proxy)[A-Za-z0-9_.-]*)=([A-Za-z0-9%._+/|-]{16,}={0,2})"#,
        1,
        Some(random_not_uuid),
        &["session", "sid=", "sessid", "logged_in", "oauth2_proxy"],
    ),
    // `docker login … -p …`, Redis's `requirepass` and `masterauth`.
    (
        r#"(?-u:\b)docker\s+login\s[^\n|;&]*?\s-p\s+["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["docker login"],
    ),
    (
        r#"(?-u:\b)(?:requirepass|masterauth)\s+["']?([^\s"'$<{][^\s"']{2,})"#,
        1,
        None,
        &["requirepass", "masterauth"],
    ),
    // A .pgpass line: host:port:database:user:password (a list's item too).
    (
        r"(?m)^(?:[-*]\s+)?[A-Za-z0-9_.*-]+:(?:[0-9]+|\*):[^:\s]+:[^:\s]+:([^:\s]{3,})$",
        1,
        Some(not_a_placeholder_password),
        &[":5432:", ":*:", ":6432:"],
    ),
    // .NET's `<add key="SmtpPassword" value="…" />`.
    (
        r#"<(?i-u:add)\s+(?i-u:key)\s*=\s*"[^"\n]*(?i-u:password|passwd|pwd|secret|token|apikey|api_key)[^"\n]*"\s+(?i-u:value)\s*=\s*"([^"\s$<{][^"\n]{2,})""#,
        1,
        Some(not_a_placeholder_password),
        &["<add"],
    ),
    // Wi-Fi keys in wpa_supplicant and hostapd: `psk="…"`,
    // `wpa_passphrase=…`.
    (
        r#"(?-u:\b)(?:psk|wpa_passphrase)\s*=\s*"?([^"\s$<{][^"\s]{7,})"?"#,
        1,
        Some(not_a_placeholder_password),
        &["psk", "wpa_passphrase"],
    ),
    // More command lines: `openssl enc … -k …` / `-pass pass:…`, `net use
    // \\server\share PASS /user:…`, `echo 'PASS' | docker login
    // --password-stdin`, `rabbitmqctl add_user USER PASS`, `lftp -u
    // USER,PASS`, SQL's `IDENTIFIED BY '…'`.
    (
        r#"(?-u:\b)openssl\s[^\n|;&]*?\s(?:-k|-pass\s+pass:|-passin\s+pass:|-passout\s+pass:)\s*["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["openssl"],
    ),
    (
        r#"(?-u:\b)(?i-u:net)\s+(?i-u:use)\s[^\n|;&]*?\\\\\S+\s+([^\s/"'*][^\s"']{2,})"#,
        1,
        Some(not_a_flag),
        &["net use"],
    ),
    (
        r#"(?-u:\b)echo\s+["']?([^\s"'|$<{][^\s"'|]{2,})["']?\s*\|\s*[^\n]*?--password-stdin"#,
        1,
        None,
        &["password-stdin"],
    ),
    (
        r#"(?-u:\b)rabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+["']?([^\s"'$<{][^\s"']{2,})"#,
        1,
        None,
        &["rabbitmqctl"],
    ),
    (
        r#"(?-u:\b)lftp\s[^\n|;&]*?-u\s+[^\s,]+,([^\s"']{3,})"#,
        1,
        None,
        &["lftp"],
    ),
    (
        r"(?-u:\b)(?i-u:identified)\s+(?i-u:by)\s+'([^'\n]{3,})'",
        1,
        None,
        &["identified by"],
    ),
    // Passwords in code: `new NetworkCredential("user", "…")`, PHP's
    // `new mysqli('host', 'user', '…', 'db')`.
    (
        r#"NetworkCredential\(\s*"[^"\n]*"\s*,\s*"([^"\n]{3,})""#,
        1,
        None,
        &["NetworkCredential"],
    ),
    (
        r#"(?i-u:new)\s+(?i-u:mysqli)\(\s*["'][^"'\n]*["']\s*,\s*["'][^"'\n]*["']\s*,\s*["']([^"'\n]{3,})["']"#,
        1,
        None,
        &["mysqli"],
    ),
    // A password a tool prints once: Elasticsearch's `New value: …`.
    (
        r"(?-u:\b)New value:\s+([A-Za-z0-9_*=+.-]{12,})",
        1,
        Some(high_entropy),
        &["New value"],
    ),
    // Okta's API tokens: `Authorization: SSWS …`.
    (r"(?-u:\b)SSWS\s+([A-Za-z0-9_-]{40,42})", 1, None, &["SSWS"]),
    // Archives, sudo, Windows accounts, MinIO's client, SNMP: `zip -P …`,
    // `7z a -p…`, `echo '…' | sudo -S`, `net user NAME PASS /add`, `mc
    // alias set NAME URL ACCESS SECRET`, `snmp-server community …`.
    (
        r#"(?-u:\b)zip\s[^\n|;&]*?\s-P\s+["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["zip"],
    ),
    (
        r#"(?-u:\b)7za?\s[^\n|;&]*?\s-p([^\s"'$<{-][^\s"']{2,})"#,
        1,
        None,
        &["7z"],
    ),
    (
        r#"(?-u:\b)echo\s+["']?([^\s"'|$<{][^\s"'|]{2,})["']?\s*\|\s*sudo\s+-S"#,
        1,
        None,
        &["sudo -S"],
    ),
    (
        r#"(?i-u:net)\s+(?i-u:user)\s+\S+\s+([^\s/"'*$<{][^\s"']{2,})\s+/(?i-u:add)"#,
        1,
        None,
        &["net user"],
    ),
    (
        r"(?-u:\b)mc\s+alias\s+set\s+\S+\s+\S+\s+\S+\s+(\S{8,})",
        1,
        Some(not_a_flag),
        &["alias set"],
    ),
    (
        r"(?-u:\b)snmp-server\s+community\s+(\S{4,})",
        1,
        Some(not_a_flag),
        &["snmp-server"],
    ),
    // PHP's `new PDO($dsn, 'user', '…')`.
    (
        r#"(?i-u:new)\s+PDO\(\s*["'][^"'\n]*["']\s*,\s*["'][^"'\n]*["']\s*,\s*["']([^"'\n]{3,})["']"#,
        1,
        None,
        &["PDO("],
    ),
    // keytool's and openssl's password flags: `-storepass …`,
    // `-passout pass:…`.
    (
        r#"\s-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass|passin|passout)\s+(?:pass:)?["']?([^\s"'$<{-][^\s"']{2,})"#,
        1,
        Some(not_a_flag),
        &["pass"],
    ),
    // A secret's name in quotes, a comma, its value in quotes: PHP's
    // `define('DB_PASSWORD', '…')`, a default in `getenv("API_TOKEN",
    // "…")`, Java's `setProperty("javax.net.ssl.keyStorePassword", "…")`.
    (
        r#"["'][A-Za-z0-9_.]*(?i-u:password|passwd|secret|token|api_?key)["']\s*,\s*["']([^"'\s$<{][^"'\n]{3,})["']"#,
        1,
        Some(looks_like_credential),
        KEY_NAMES,
    ),
    // key = "quoted value" / "key": "value" / 'key' => 'value' (PHP, Ruby)
    // for secret-ish key names.
    (
        concat!(
            r#"["']?"#,
            key!(),
            r#"["']?\s*(?:=>|[:=])\s*"([^"\s\[/~.$<{][^"]{3,})""#
        ),
        1,
        None,
        KEY_NAMES,
    ),
    (
        concat!(
            r#"["']?"#,
            key!(),
            r#"["']?\s*(?:=>|[:=])\s*'([^'\s\[/~.$<{][^']{3,})'"#
        ),
        1,
        None,
        KEY_NAMES,
    ),
    // A shell or .env assignment to an all-capitals secret variable
    // (`DB_PASS=sunshine`, `export PGPASSWORD=…`): whatever is assigned is
    // the secret, plain word or not, unless it is a variable, a path, a
    // placeholder or a flag value.
    (
        r#"(?-u:\b)[A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|SECRET_?KEY)=([^\s"'$<{\[/~.(:=][^\s"',;]{3,})"#,
        1,
        Some(not_a_flag),
        KEY_NAMES,
    ),
    // key=value unquoted: the value must look like a credential (6+ chars,
    // not a path, variable or placeholder, not a plain word).
    (
        concat!(key!(), r#"\s*[:=]\s*([^\s"',;\[/~.$<{(:=][^\s"',;]{5,})"#),
        1,
        Some(credential_not_code),
        KEY_NAMES,
    ),
    // The entropy check: a random-looking value given to a name that ends
    // in a secret-ish word (`SECRET_KEY_BASE=…`, `session_signing_key: …`,
    // `"encryptionKey": "…"`), where no format and no known key name says
    // so. A public key's name is matched first, by an alternative that
    // captures nothing, so its value is kept.
    (
        concat!(
            // The name is found by its end alone, ASCII case-insensitive:
            // a `[a-z]*` prefix kept alive inside every word would multiply
            // the prefilter set's DFA states (it made redaction 3x slower).
            r#"(?i-u:pub(?:lic)?[_.-]?key)["']?\s*[:=]"#,
            r#"|(?i-u:key|secret|token|passw(?:or)?d|credentials?|auth|signature|salt|seed)"#,
            r#"(?i-u:[_.-]?(?:base|value|data|b64|hex|material|str))?["']?\s*[:=]\s*["']?"#,
            r#"([A-Za-z0-9+/=_.~!@#%^&*-]{16,})"#
        ),
        1,
        Some(high_entropy),
        &[
            "key",
            "secret",
            "token",
            "passw",
            "credential",
            "auth",
            "signature",
            "salt",
            "seed",
        ],
    ),
    // Tools' own forms: see [`super::tool_forms`].
    super::tool_forms::PASSPHRASE_QUOTED,
    super::tool_forms::PASSPHRASE_FLAG,
    super::tool_forms::MONGO_PASSWORD,
    super::tool_forms::ORACLE_PASSWORD,
    super::tool_forms::TEAMS_WEBHOOK,
    super::tool_forms::TOTP_SECRET,
    super::tool_forms::NMCLI_QUOTED,
    super::tool_forms::NMCLI_WORD,
    super::tool_forms::WALLET_KEY,
    super::tool_forms::EXTENDED_PRIVATE_KEY,
    super::tool_forms::AIRTABLE_TOKEN,
    super::tool_forms::ASANA_TOKEN,
    // Payment cards: see [`super::card`].
    super::card::NUMBER,
    super::card::NUMBER_BEFORE,
    super::card::SECURITY_CODE,
];
