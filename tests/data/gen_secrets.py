#!/usr/bin/env python3
"""Writes tests/data/secrets.tsv and tests/data/lookalikes.tsv.

Every secret is made up here from a fixed seed in its provider's
documented shape (the gitleaks rule set as the reference); none is a real
key. Re-running gives the same bytes:

    python3 tests/data/gen_secrets.py

secrets.tsv:    provider <TAB> context <TAB> secret <TAB> line
lookalikes.tsv: kind <TAB> line
A line's `\\n` stands for a line break (private key blocks).
"""
import base64
import random
import string
from pathlib import Path

R = random.Random(11)
UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def rs(alphabet, n):
    return "".join(R.choice(alphabet) for _ in range(n))


def pw():
    """A password a person would pick: words, digits, a symbol."""
    words = ["Orchid", "tango", "Maple", "river", "Quartz", "falcon", "Nimbus", "cobalt"]
    return R.choice(words) + rs(DIG, 3) + R.choice("!#%&*") + R.choice(words).lower() + rs(DIG, 2)


def b64pad(n):
    s = rs(B64, n)
    return s


def jwt():
    h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    p = base64.urlsafe_b64encode(
        ('{"sub":"%s","iat":%d}' % (rs(DIG, 10), 1700000000 + R.randrange(10**7))).encode()
    ).decode().rstrip("=")
    return f"{h}.{p}.{rs(URLSAFE, 43)}"


def pem(kind):
    body = "\\n".join(rs(B64, 64) for _ in range(3))
    return f"-----BEGIN {kind}-----\\n{body}\\n-----END {kind}-----"


# provider -> (generator, needs a telling name nearby?)
TOKENS = {
    "aws-access-key-id": (lambda: R.choice(["AKIA", "ASIA"]) + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), False),
    "gcp-api-key": (lambda: "AIza" + rs(URLSAFE, 35), False),
    "github-pat": (lambda: "ghp_" + rs(ALNUM, 36), False),
    "github-oauth": (lambda: "gho_" + rs(ALNUM, 36), False),
    "github-app": (lambda: R.choice(["ghu_", "ghs_"]) + rs(ALNUM, 36), False),
    "github-refresh": (lambda: "ghr_" + rs(ALNUM, 36), False),
    "github-fine-grained": (lambda: "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59), False),
    "gitlab-pat": (lambda: "glpat-" + rs(URLSAFE, 20), False),
    "gitlab-deploy": (lambda: "gldt-" + rs(URLSAFE, 20), False),
    "gitlab-runner": (lambda: "glrt-" + rs(URLSAFE, 20), False),
    "gitlab-trigger": (lambda: "glptt-" + rs(HEX, 40), False),
    "slack-bot": (lambda: f"xoxb-{rs(DIG, 12)}-{rs(DIG, 13)}-{rs(ALNUM, 24)}", False),
    "slack-user": (lambda: f"xoxp-{rs(DIG, 12)}-{rs(DIG, 12)}-{rs(DIG, 13)}-{rs(HEX, 32)}", False),
    "slack-app": (lambda: f"xapp-1-A{rs(UP + DIG, 10)}-{rs(DIG, 13)}-{rs(HEX, 64)}", False),
    "slack-webhook": (lambda: f"https://hooks.slack.com/services/T{rs(UP + DIG, 8)}/B{rs(UP + DIG, 10)}/{rs(ALNUM, 24)}", False),
    "stripe-secret": (lambda: "sk_live_" + rs(ALNUM, 99), False),
    "stripe-test": (lambda: "sk_test_" + rs(ALNUM, 24), False),
    "stripe-restricted": (lambda: "rk_live_" + rs(ALNUM, 24), False),
    "stripe-webhook": (lambda: "whsec_" + rs(ALNUM, 32), False),
    "shopify-access": (lambda: "shpat_" + rs(HEX, 32), False),
    "shopify-shared": (lambda: "shpss_" + rs(HEX, 32), False),
    "square-access": (lambda: "EAAA" + rs(URLSAFE, 60), False),
    "square-oauth": (lambda: "sq0csp-" + rs(URLSAFE, 43), False),
    "databricks": (lambda: "dapi" + rs(HEX, 32), False),
    "grafana-cloud": (lambda: "glc_" + rs(ALNUM, 32) + rs(ALNUM + "+/", 20) + "==", False),
    "grafana-sa": (lambda: "glsa_" + rs(ALNUM, 32) + "_" + rs(HEX, 8), False),
    "postman": (lambda: f"PMAK-{rs(HEX, 24)}-{rs(HEX, 34)}", False),
    "doppler": (lambda: "dp.pt." + rs(ALNUM, 43), False),
    "atlassian": (lambda: "ATATT3" + rs(URLSAFE, 186), False),
    "telegram-bot": (lambda: f"{rs(DIG, 10)}:AA{rs(URLSAFE, 33)}", False),
    "mailchimp": (lambda: f"{rs(HEX, 32)}-us{R.randrange(1, 21)}", False),
    "age": (lambda: "AGE-SECRET-KEY-1" + rs(BECH32, 58), False),
    "fcm": (lambda: f"AAAA{rs(URLSAFE, 7)}:{rs(URLSAFE, 140)}", False),
    "sentry-user-token": (lambda: "sntryu_" + rs(HEX, 64), False),
    "dockerhub": (lambda: "dckr_pat_" + rs(URLSAFE, 27), False),
    "openai-project": (lambda: "sk-proj-" + rs(URLSAFE, 156), False),
    "openai-legacy": (lambda: "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20), False),
    "anthropic": (lambda: "sk-ant-api03-" + rs(URLSAFE, 93) + "AA", False),
    "anthropic-admin": (lambda: "sk-ant-admin01-" + rs(URLSAFE, 93) + "AA", False),
    "huggingface": (lambda: "hf_" + rs(UP + LO, 34), False),
    "npm": (lambda: "npm_" + rs(ALNUM, 36), False),
    "pypi": (lambda: "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 70), False),
    "sendgrid": (lambda: f"SG.{rs(URLSAFE, 22)}.{rs(URLSAFE, 43)}", False),
    "twilio-api-key": (lambda: "SK" + rs(HEX, 32), False),
    "jwt": (jwt, False),
    "digitalocean": (lambda: "dop_v1_" + rs(HEX, 64), False),
    "linear": (lambda: "lin_api_" + rs(ALNUM, 40), False),
    "vault": (lambda: "hvs." + rs(URLSAFE, 90), False),
    "new-relic": (lambda: "NRAK-" + rs(UP + DIG, 27), False),
    "pulumi": (lambda: "pul-" + rs(HEX, 40), False),
    "azure-ad-client-secret": (lambda: rs(ALNUM, 3) + rs(DIG, 1) + "Q~" + rs(ALNUM + "_~.-", 34), False),
    # Secrets with no prefix of their own: found by the name they are given.
    "aws-secret-key": (lambda: rs(ALNUM + "+/", 40), True),
    "twilio-auth-token": (lambda: rs(HEX, 32), True),
    "cloudflare-api-token": (lambda: rs(URLSAFE, 40), True),
    "heroku-api-key": (lambda: "-".join(rs(HEX, n) for n in (8, 4, 4, 4, 12)), True),
    "mailgun": (lambda: "key-" + rs(HEX, 32), True),
    "django-secret": (lambda: rs(LO + DIG + "!@#%^&*(-_=+)", 50), True),
    "rails-secret-key-base": (lambda: rs(HEX, 128), True),
    "okta": (lambda: "00" + rs(URLSAFE, 40), True),
    "generic-password": (pw, True),
    "session-signing-key": (lambda: rs(ALNUM, 32), True),
    "encryption-key": (lambda: base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode(), True),
}

# Contexts for a token: how it shows up in a log. {s} is the secret.
ALONE = [
    "The CI job failed until I swapped in {s} for the old credential.",
    "Pasted {s} into the chat by mistake; rotate it.",
    "- the token that leaked was {s} (revoked since)",
    "Deploy used `{s}` and it worked on the second try.",
]
NAMED = {  # (context, template); {n} is the variable name
    "env": "{N}={s}",
    "export": "export {N}={s}",
    "json": '{{"{n}": "{s}", "region": "eu-central-1"}}',
    "yaml": "  {n}: {s}",
    "yaml-quoted": '  {n}: "{s}"',
    "toml": '{n} = "{s}"',
    "docker-env": "docker run -e {N}={s} app:latest",
    "k8s": "        - name: {N}\\n          value: \"{s}\"",
}
NAMES = {
    "aws-secret-key": "aws_secret_access_key",
    "twilio-auth-token": "twilio_auth_token",
    "cloudflare-api-token": "cloudflare_api_token",
    "heroku-api-key": "heroku_api_key",
    "mailgun": "mailgun_api_key",
    "django-secret": "django_secret_key",
    "rails-secret-key-base": "secret_key_base",
    "okta": "okta_api_token",
    "generic-password": "db_password",
    "session-signing-key": "session_signing_key",
    "encryption-key": "encryption_key",
}


def named(provider, ctx, s):
    n = NAMES.get(provider) or provider.split("-")[0] + "_" + R.choice(
        ["token", "api_key", "key", "secret", "credentials", "auth"])
    return NAMED[ctx].format(n=n, N=n.upper(), s=s)


def main():
    out = []
    ctxs = list(NAMED)
    for provider, (gen, needs_name) in TOKENS.items():
        for i in range(2):
            s = gen()
            if needs_name or i == 1:
                ctx = ctxs[R.randrange(len(ctxs))]
                if ctx == "k8s":
                    ctx = "env"
                line = named(provider, ctx, s)
            else:
                ctx = "alone"
                line = R.choice(ALONE).format(s=s)
            out.append((provider, ctx, s, line))

    # Credentials in URLs, command lines, headers, key blocks.
    for scheme, host in [("postgres", "db.internal:5432/app"), ("postgresql", "10.0.3.7/prod"),
                         ("mysql", "mysql.svc:3306/shop"), ("mongodb+srv", "cluster0.ab1cd.mongodb.net/app"),
                         ("redis", "cache:6379/0"), ("amqp", "rabbit:5672/%2f"), ("https", "git.example.com/org/repo.git")]:
        for _ in range(2):
            p = pw()
            user = R.choice(["app", "admin", "deploy", "svc_ro"])
            out.append(("db-url", "url", p, f"DATABASE_URL={scheme}://{user}:{p}@{host}"))
            p = pw()
            out.append(("db-url", "url-prose", p, f"connected with {scheme}://{user}:{p}@{host} at last"))
    for tmpl in [
        "mysql -u root -p{s} -h db.internal shop",
        "psql --password={s} -h db app",
        "curl -u deploy:{s} https://ci.example.com/api/builds",
        "sshpass -p {s} ssh ops@bastion",
        "redis-cli -h cache -a {s} ping",
        "docker login -u ci --password {s} registry.example.com",
        "PGPASSWORD={s} psql -h db app",
        "vault login --token {s}",
        "mongosh --username admin --password {s} mongodb://db",
        "git clone https://oauth2:{s}@gitlab.example.com/team/app.git",
        "rabbitmqctl add_user deploy --password={s}",
        "htpasswd -b .htpasswd admin --pass={s}",
    ]:
        s = pw()
        out.append(("cli-password", "cli", s, tmpl.format(s=s)))
    for tmpl, gen in [
        ("Authorization: Bearer {s}", lambda: rs(URLSAFE, 40)),
        ("curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me", lambda: rs(ALNUM, 32)),
        ("Authorization: Basic {s}", lambda: base64.b64encode(f"deploy:{pw()}".encode()).decode()),
        ("X-Api-Key: {s}", lambda: rs(ALNUM, 32)),
        ("curl -H \"x-api-key: {s}\" https://api.example.com", lambda: rs(HEX, 40)),
        ("PRIVATE-TOKEN: {s}", lambda: "glpat-" + rs(URLSAFE, 20)),
        ("X-Auth-Token: {s}", lambda: rs(ALNUM, 36)),
        ("api-key: {s}", lambda: rs(HEX, 32)),
    ]:
        s = gen()
        out.append(("http-header", "header", s, tmpl.format(s=s)))
    for kind in ["RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY",
                 "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"]:
        block = pem(kind)
        # The middle line stands for the secret.
        secret = block.split("\\n")[2]
        out.append(("private-key", "block", secret, block))
    block = pem("PRIVATE KEY")
    out.append(("gcp-service-account", "json", block.split("\\n")[2],
                '{"type": "service_account", "private_key": "' + block + '\\\\n"}'))
    # Azure connection strings and SAS.
    for _ in range(2):
        k = rs(B64, 86) + "=="
        out.append(("azure-storage", "connection-string", k,
                    f"DefaultEndpointsProtocol=https;AccountName=acme{rs(LO, 4)};AccountKey={k};EndpointSuffix=core.windows.net"))
        k = rs(B64, 43) + "="
        out.append(("azure-servicebus", "connection-string", k,
                    f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={k}"))
        k = rs(ALNUM, 43) + "%3D"
        out.append(("azure-sas", "url", k,
                    f"https://acme.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01&sig={k}"))
    for _ in range(3):
        k = rs(HEX, 32)
        out.append(("sentry-dsn", "url", k, f"SENTRY_DSN=https://{k}@o{rs(DIG, 6)}.ingest.sentry.io/{rs(DIG, 7)}"))
    for _ in range(2):
        t = rs(URLSAFE, 68)
        out.append(("discord-webhook", "url", t, f"posting to https://discord.com/api/webhooks/{rs(DIG, 18)}/{t}"))

    look = lookalikes()
    # Issue 28: more providers and phrasings, from a seed of their own so
    # the rows above stay as they were.
    R.seed(28)
    out += more_secrets()
    look += more_lookalikes()

    path = Path(__file__).with_name("secrets.tsv")
    with path.open("w") as f:
        f.write("# provider\tcontext\tsecret\tline (generated by gen_secrets.py; not real keys)\n")
        for row in out:
            assert all("\t" not in x and "\n" not in x for x in row), row
            f.write("\t".join(row) + "\n")
    print(f"{len(out)} secrets -> {path}")

    path = Path(__file__).with_name("lookalikes.tsv")
    with path.open("w") as f:
        f.write("# kind\tline (must come out unchanged)\n")
        for row in look:
            assert all("\t" not in x and "\n" not in x for x in row), row
            f.write("\t".join(row) + "\n")
    print(f"{len(look)} look-alikes -> {path}")


def lookalikes():
    out = []
    add = lambda kind, line: out.append((kind, line))
    for _ in range(8):
        h = rs(HEX, 40)
        add("git-hash", R.choice([f"commit {h}", f"Merged {h[:12]} into main", f"git revert {h}", f"fixed in {h[:7]}"]))
    for _ in range(8):
        u = "-".join(rs(HEX, n) for n in (8, 4, 4, 4, 12))
        add("uuid", R.choice([f"request id {u} failed", f"tenant_id: {u}", f'"traceId": "{u}"', f"SESSION_ID={u}"]))
    for _ in range(8):
        d = rs(HEX, 64)
        add("sha256", R.choice([f"sha256:{d}", f"{d}  hipo-x86_64.tar.gz", f"image@sha256:{d}",
                                  f"checksum = \"sha256-{d}\"", f"digest: {d}"]))
    for line in [
        "integrity=\"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"",
        "md5 of the dump is 9e107d9d372bb6826bd81d3542a419d6",
        "etag \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
    ]:
        add("hash", line)
    for line in [
        "ask-the-experts-panel", "the sk-learn pipeline is slow", "docs/sk-learn-pipeline-notes.md",
        "task-runner-config-v2", "release-2026-q1-checklist", "sk-learn-and-pandas-cheatsheet",
        "feature/token-refresh-rework", "fix/password-reset-email", "secret-santa-2026-signups",
        "blog post: how-we-rotate-api-keys-safely", "branch hf_hub-download-retry",
        "the kubernetes pod api-7d9f8b6c5-x2x4q restarted", "npm package @acme/auth-token-client",
        "crate secrecy-0.8.0 and the keyring crate",
    ]:
        add("slug", line)
    for line in [
        "OPENAI_API_KEY=sk-...", "api_key: <your-api-key>", "GITHUB_TOKEN=<your-token>",
        "password: xxxx", "password: ********", "API_KEY=xxxxxxxxxxxxxxxxxxxx",
        "token: YOUR_TOKEN_HERE", "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX",
        "export STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "secret: ${SECRET}",
        "DB_PASSWORD=${DB_PASSWORD}", "password: {{ vault_db_password }}", "token: $(cat /run/secrets/token)",
        "Authorization: Bearer <token>", "Authorization: Bearer $TOKEN", "api_key = \"\"",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "set HF_TOKEN to hf_... from your settings page",
        "password: changeme-in-prod? no, ask ops", "npm token looks like npm_XXXX",
        "the key goes in `SENTRY_DSN` (https://<key>@o0.ingest.sentry.io/<project>)",
        "postgres://user:password@localhost:5432/db is the template in the docs",
        "mysql://USER:PASSWORD@HOST/DB", "redis://:<password>@host:6379",
    ]:
        add("placeholder", line)
    for line in [
        "match t { Token::Ident(s) => 1 }", 'client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])',
        "let token = self.next_token()?;", "if password.len() < 12 { return Err(Weak) }",
        "fn get_secret_key(&self) -> &Key", "TokenKind::Secret => skip(),", "auth_token_ttl_secs: 3600",
        "password: z.string().min(12),", "apiKey: process.env.OPENAI_KEY,", "token = os.getenv(\"GH_TOKEN\")",
        "secret = vault.read(\"kv/app\")", "password: String,", "token: Option<String>,",
        "const MAX_TOKENS: usize = 4096;", "max_tokens: 100000", "PASSWORD_MIN_LENGTH=12",
        "secretKeyRef:", "    name: db-credentials", "api_key = settings.API_KEY",
        "password = getpass.getpass()", "token := r.Header.Get(\"Authorization\")",
        "const apiKey = useApiKey();", "self.password_hash = bcrypt(password)",
        "export GITHUB_TOKEN=$(gh auth token)", "USE_TOKEN=true", "PWD=/home/ops/app",
        "private_key_path: ~/.ssh/id_ed25519", "ssh_key: /etc/ssl/private/server.key",
        "TOKEN_ENDPOINT=https://auth.example.com/oauth/token", "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq0mK7n8RZbKx3vQ1yP2wH5tL9sD4fJ6cB8aE0uN7rS ops@laptop",
        "primary_key: id", "cache_key: user:1234:profile", "sort_key = \"created_at\"",
        "password_reset_token_expiry: 24h", "SECRET_NAME=prod/app/db", "token_type: bearer",
        "grant_type=client_credentials&scope=read", "secrets: inherit",
    ]:
        add("code", line)
    for line in [
        "~/.ssh/id_ed25519.pub", "/etc/ssl/private/server.key", "secrets/prod.env.example",
        "src/auth/token_store.rs", "config/credentials.yml.enc", "/var/run/secrets/kubernetes.io/serviceaccount/token",
        "C:\\Users\\ops\\.aws\\credentials", "memory/2026-01-02.md",
    ]:
        add("path", line)
    for text in ["hello world", "the quick brown fox jumps over the lazy dog",
                 "user=alice;role=admin", "{\"kind\":\"note\",\"id\":42}", "Meeting notes 2026-03-15"]:
        add("base64", f"payload {base64.b64encode(text.encode()).decode()} decoded fine")
    add("base64", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
    for line in [
        "I changed my password yesterday", "the password must be 12 characters", "password: must be rotated",
        "token: expires in 1h", "secret: nobody knows", "We rotated the Stripe key after the incident.",
        "Bearer auth is used for the internal API", "Authorization: Basic credentials are rejected",
        "The API key lives in 1Password under 'Prod Stripe'.", "Ask Jin for the Grafana token, do not paste it here.",
        "회의에서 비밀번호 정책을 논의함", "API 키는 금고에 보관한다",
        "watch the token budget: 3000 tokens for ROOT", "password: required for all users",
        "GitHub tokens start with ghp_ and GitLab ones with glpat-.", "Use AWS keys from the vault (AKIA… ids).",
    ]:
        add("prose", line)
    for line in [
        "ssh://git@host:22/repo and mail me@x.io", "git@github.com:acme/hipo.git", "https://user@example.com/login",
        "see https://example.com/a?sig=short", "https://example.com/docs/auth?token=", "ssh -p 2222 host",
        "docker run -p 8080:80 app", "docker run -u 1000:1000 app", "docker login --password-stdin",
        "mysql -p app", "ps -u root", "time 12:30:45 ok", "IPv6 2001:db8:85a3::8a2e:370:7334",
        "AAAA record for api.example.com", "v1.2.3-rc.4+build.5", "#ff8800 and #1e90ff", "10.0.3.7:5432",
        "2026-03-15T09:30:00Z", "ISBN 978-0-13-468599-1", "+1-555-0100",
    ]:
        add("misc", line)
    return out


def discord_bot():
    head = base64.b64encode(str(R.randrange(10**17, 10**19)).encode()).decode().rstrip("=")
    return f"{head}.{rs(URLSAFE, 6)}.{rs(URLSAFE, 38)}"


def more_secrets():
    out = []
    prose = [
        "ok here it is: {s}",
        "I accidentally committed {s} to the repo",
        "the value in the dashboard was {s} before I rotated it",
        "(temporary) {s}",
    ]
    gens = [
        ("discord-bot-token", discord_bot),
        ("slack-bot", lambda: f"xoxb-{rs(DIG, 12)}-{rs(DIG, 13)}-{rs(ALNUM, 24)}"),
        ("stripe-secret", lambda: "sk_live_" + rs(ALNUM, 24)),
        ("stripe-restricted", lambda: "rk_test_" + rs(ALNUM, 24)),
        ("sendgrid", lambda: f"SG.{rs(URLSAFE, 22)}.{rs(URLSAFE, 43)}"),
        ("npm", lambda: "npm_" + rs(ALNUM, 36)),
        ("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 70)),
        ("gitlab-pat", lambda: "glpat-" + rs(URLSAFE, 20)),
        ("gitlab-runner", lambda: "glrt-" + rs(URLSAFE, 20)),
        ("azure-ad-client-secret", lambda: rs(ALNUM, 3) + rs(DIG, 1) + "Q~" + rs(ALNUM + "_~.-", 34)),
        ("jwt", jwt),
        ("github-pat", lambda: "ghp_" + rs(ALNUM, 36)),
        ("openai-project", lambda: "sk-proj-" + rs(URLSAFE, 100)),
        ("anthropic", lambda: "sk-ant-api03-" + rs(URLSAFE, 93) + "AA"),
        ("huggingface", lambda: "hf_" + rs(UP + LO, 34)),
        ("twilio-api-key", lambda: "SK" + rs(HEX, 32)),
    ]
    for provider, gen in gens:
        for t in R.sample(prose, 2):
            s = gen()
            out.append((provider, "prose", s, t.format(s=s)))
    # Providers whose secrets have no prefix, named as people name them.
    for provider, gen, lines in [
        ("twilio-auth-token", lambda: rs(HEX, 32),
         ["TWILIO_AUTH_TOKEN={s}", "twilio auth token: {s}", "Twilio auth token is {s}"]),
        ("mailgun", lambda: f"{rs(HEX, 32)}-{rs(HEX, 8)}-{rs(HEX, 8)}",
         ["MAILGUN_API_KEY={s}", "mailgun api key: {s}"]),
        ("mailgun", lambda: "key-" + rs(HEX, 32), ["mailgun_key = \"{s}\""]),
        ("azure-client-secret", lambda: rs(ALNUM + "~._-", 40),
         ["AZURE_CLIENT_SECRET={s}", "\"clientSecret\": \"{s}\""]),
        ("cloudflare-api-token", lambda: rs(URLSAFE, 40), ["CLOUDFLARE_API_TOKEN={s}", "cloudflare token: {s}"]),
        ("datadog-api-key", lambda: rs(HEX, 32), ["DD_API_KEY={s}", "datadog api key is {s}"]),
    ]:
        for t in lines:
            s = gen()
            out.append((provider, "named", s, t.format(s=s)))
    for kind in ["EC PRIVATE KEY", "DSA PRIVATE KEY", "OPENSSH PRIVATE KEY"]:
        block = pem(kind)
        out.append(("private-key", "block", block.split("\\n")[2], "here's the key:\\n" + block))
    for tmpl in [
        "Server=tcp:acme.database.windows.net,1433;Database=app;User ID=sa;Password={s};Encrypt=true",
        "jdbc:postgresql://db.internal:5432/app?user=app&password={s}",
        "mongodb://admin:{s}@mongo-0.mongo:27017/?replicaSet=rs0",
        "amqps://deploy:{s}@rabbit.internal/vhost",
        "Data Source=db;Initial Catalog=shop;User Id=app;Password={s};",
    ]:
        s = pw()
        out.append(("connection-string", "url", s, tmpl.format(s=s)))
    return out


def more_lookalikes():
    out = []
    add = lambda kind, line: out.append((kind, line))
    for line in [
        "discord.js v14.11.0 is the bot library", "Slack tokens start with xoxb- for bots",
        "SendGrid keys look like SG.xxxxx.yyyyy", "sk_live_ keys are for production, sk_test_ for tests",
        "npm token create --read-only", "twine upload uses a pypi- token from ~/.pypirc",
        "GitLab PATs start with glpat-", "the Azure tenant is contoso.onmicrosoft.com",
        "Server=db;Database=app;Integrated Security=true", "Data Source=db;Initial Catalog=shop;Password=;",
        "jdbc:postgresql://db.internal:5432/app?user=app", "mongodb://mongo-0.mongo:27017/?replicaSet=rs0",
        "AccountName=acmebackups;EndpointSuffix=core.windows.net", "the Twilio account SID goes in TWILIO_ACCOUNT_SID",
        "-----BEGIN PUBLIC KEY-----", "ssh-keygen -t ed25519 -C ops@laptop", "gpg --list-secret-keys --keyid-format LONG",
        "JWTs have three base64url parts separated by dots", "eyJ is how every JWT header starts",
        "Mailgun sends from mg.example.com", "DD_SITE=datadoghq.eu", "CLOUDFLARE_ZONE_ID is not a secret",
    ]:
        add("provider-prose", line)
    for _ in range(6):
        add("uuid", R.choice(["trace {u} ok", "tenant {u}", "subscription id: {u}"]).format(
            u="-".join(rs(HEX, n) for n in (8, 4, 4, 4, 12))))
    for _ in range(6):
        h = rs(HEX, 40)
        add("git-hash", R.choice([f"Reverted {h}", f"cherry-pick {h[:10]}", f"tree {h}"]))
    return out


if __name__ == "__main__":
    main()
