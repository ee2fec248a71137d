#!/usr/bin/env python3
"""Writes tests/data/nl_secrets.tsv and tests/data/nl_lookalikes.tsv: secrets
said in words, as people type them into a chat (issue 28), and prose that
only looks like it holds one.

Every value is made up here from a fixed seed; none is a real credential.
Re-running gives the same bytes:

    python3 tests/data/gen_nl_secrets.py

nl_secrets.tsv:    half <TAB> kind <TAB> secret <TAB> line
nl_lookalikes.tsv: half <TAB> kind <TAB> line

Each template belongs to one half (A or B, alternating in the order written
below), so a rule tuned on the phrasings of one half is checked on phrasings
it has not seen: keep a rule change only when it wins on both halves.
"""
import base64
import random
import string
from pathlib import Path

R = random.Random(28)
UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
WORDS = ["orchid", "tango", "maple", "river", "quartz", "falcon", "nimbus", "cobalt", "violet",
         "anchor", "meadow", "tiger", "copper", "lantern", "harbor", "pepper", "glacier", "ember"]
SERVICES = ["staging", "prod", "billing", "grafana", "jenkins", "the VPN", "the router", "postgres",
            "the NAS", "mailserver", "kibana", "the office wifi", "redis", "the bastion", "sentry"]
USERS = ["admin", "root", "deploy", "ops", "postgres", "jin", "svc_backup", "ubuntu", "alice.m"]
NAMES = ["Jin", "Maria", "Tomás", "Aiko", "Olek", "Priya", "Sven"]


def rs(alphabet, n):
    return "".join(R.choice(alphabet) for _ in range(n))


def human_pw():
    """A password a person picks: words, digits, symbols, leet."""
    w = R.choice(WORDS)
    kind = R.randrange(6)
    if kind == 0:
        return w.capitalize() + rs(DIG, 4) + R.choice("!#$%&*?@")
    if kind == 1:
        leet = w.replace("o", "0").replace("a", "@").replace("e", "3").replace("i", "1")
        return leet.capitalize() + R.choice("!#$%&*") + rs(DIG, 2)
    if kind == 2:
        return f"{R.choice(WORDS)}{rs(DIG, 1)}-{w.capitalize().replace('o', '0')}{rs(DIG, 2)}{R.choice('&#!')}{rs(DIG, 1)}"
    if kind == 3:
        return rs(ALNUM + "!#$%&*@^", 12)
    if kind == 4:
        return w.capitalize() + R.choice(WORDS).capitalize() + "-" + rs(DIG, 4)
    return w + rs(DIG, 2) + R.choice(WORDS) + rs(DIG, 2)


def passphrase():
    words = R.sample(WORDS, 4)
    kind = R.randrange(3)
    if kind == 0:
        return "-".join(words)
    if kind == 1:
        return "-".join(words[:3]) + "-" + rs(DIG, 2)
    return "".join(w.capitalize() for w in words[:3]) + rs(DIG, 2) + R.choice("!.#")


def discord_bot():
    uid = str(R.randrange(10**17, 10**19)).encode()
    head = base64.b64encode(uid).decode().rstrip("=")
    return f"{head}.{rs(URLSAFE, 6)}.{rs(URLSAFE, 38)}"


VALUES = {
    "password": human_pw,
    "passphrase": passphrase,
    "aws-secret": lambda: rs(ALNUM + "+/", 40),
    "twilio-auth-token": lambda: rs(HEX, 32),
    "discord-bot-token": discord_bot,
    "api-secret-hex": lambda: rs(HEX, 40),
    "api-token": lambda: rs(ALNUM, R.choice([24, 32, 40, 48])),
    "api-key-uuid": lambda: "-".join(rs(HEX, n) for n in (8, 4, 4, 4, 12)),
}

# (kind, template); {s} the secret, {svc} a service, {user} a login.
TEMPLATES = [
    ("password", "the {svc} password is {s}"),
    ("password", "{Svc} DB password: {s}"),
    ("password", "pw: {s}"),
    ("password", "pw for {svc} is {s}"),
    ("password", "password = {s}"),
    ("password", "ok so the password for {svc} is {s}, don't share it"),
    ("password", "new password -> {s}"),
    ("password", "I set the {svc} password to {s} for now"),
    ("password", "login is {user} / {s}"),
    ("password", "creds for {svc}: {user} / {s}"),
    ("password", "{user} / {s} gets you into {svc}"),
    ("password", "use {user}:{s} to log into {svc}"),
    ("password", "wifi password is {s}"),
    ("password", "the password's {s} btw"),
    ("password", "try password {s} on the {svc} box"),
    ("password", "Password was reset to {s} this morning."),
    ("password", "here's the root password: {s}"),
    ("password", "password (staging): {s}"),
    ("password", "the password, if you need it, is {s}"),
    ("password", "`{s}` is the password for {svc}"),
    ("password", "pwd: {s}"),
    ("password", "the admin password is still {s}?"),
    ("password", "user {user} pass {s}"),
    ("password", "my password is literally {s} lol"),
    ("passphrase", "passphrase {s}"),
    ("passphrase", "the passphrase is {s}"),
    ("passphrase", "passphrase for the GPG key: {s}"),
    ("passphrase", "ssh key passphrase = {s}"),
    ("passphrase", "my passphrase was '{s}'"),
    ("passphrase", "the backup passphrase is \"{s}\""),
    ("aws-secret", "my AWS secret key is {s}"),
    ("aws-secret", "aws secret: {s}"),
    ("aws-secret", "secret access key {s}"),
    ("aws-secret", "AWS secret key for the backup user is {s}"),
    ("aws-secret", "the secret key is {s} (access key id is in 1Password)"),
    ("aws-secret", "here's the aws secret {s}"),
    ("twilio-auth-token", "Twilio auth token is {s}"),
    ("twilio-auth-token", "auth token: {s}"),
    ("twilio-auth-token", "twilio auth token {s}"),
    ("twilio-auth-token", "the auth token for the SMS account is {s}"),
    ("twilio-auth-token", "Twilio's auth token = {s}"),
    ("discord-bot-token", "Discord bot token: {s}"),
    ("discord-bot-token", "the bot token is {s}"),
    ("discord-bot-token", "here is the token for the discord bot {s}"),
    ("discord-bot-token", "bot logs in with {s}"),
    ("api-secret-hex", "API secret for {svc} is {s}"),
    ("api-secret-hex", "the api secret: {s}"),
    ("api-secret-hex", "client secret is {s}"),
    ("api-secret-hex", "webhook signing secret = {s}"),
    ("api-secret-hex", "app secret {s}"),
    ("api-secret-hex", "the API secret they gave us for {svc} is {s}."),
    ("api-token", "the token is {s}"),
    ("api-token", "my {svc} token: {s}"),
    ("api-token", "access token = {s}"),
    ("api-token", "bearer token is {s}"),
    ("api-token", "API key is {s}"),
    ("api-token", "the api key for {svc} is {s}"),
    ("api-token", "key: {s}"),
    ("api-token", "personal access token {s}"),
    ("api-token", "token for {svc} -> {s}"),
    ("api-token", "the secret is {s}"),
    ("api-key-uuid", "the Heroku API key is {s}"),
    ("api-key-uuid", "api key: {s}"),
    # Other languages around, native words for password, key, token.
    ("password", "das Passwort für {svc} ist {s}"),
    ("password", "Passwort: {s}"),
    ("api-token", "der API-Schlüssel ist {s}"),
    ("password", "le mot de passe est {s}"),
    ("password", "mot de passe : {s}"),
    ("api-token", "la clé API est {s}"),
    ("api-token", "le token de {svc} est {s}"),
    ("password", "la contraseña es {s}"),
    ("password", "contraseña: {s}"),
    ("api-token", "la clave de API es {s}"),
    ("password", "a senha do {svc} é {s}"),
    ("password", "senha: {s}"),
    ("password", "la password di {svc} è {s}"),
    ("password", "het wachtwoord is {s}"),
    ("password", "hasło do {svc} to {s}"),
    ("password", "пароль от {svc}: {s}"),
    ("password", "пароль — {s}"),
    ("api-token", "токен: {s}"),
    ("password", "비밀번호는 {s} 입니다"),
    ("password", "{svc} 비밀번호: {s}"),
    ("api-token", "API 키는 {s}"),
    ("api-token", "토큰: {s}"),
    ("password", "パスワードは{s}です"),
    ("password", "パスワード：{s}"),
    ("api-token", "APIキーは {s} です"),
    ("password", "密码是{s}"),
    ("password", "数据库密码：{s}"),
    ("api-token", "令牌是 {s}"),
    ("password", "el password es {s}"),
    ("aws-secret", "la secret key de AWS es {s}"),
    ("twilio-auth-token", "der Twilio auth token ist {s}"),
    ("api-secret-hex", "le secret de l'API est {s}"),
    # A second batch, written before any rule saw it (its first figures
    # are in docs/reliability.md).
    ("password", "fyi root pw on the db box = {s}"),
    ("password", "can you log in? user: {user}, password: {s}"),
    ("password", "PASSWORD IS {s}"),
    ("password", "the new one is {s} (password for {svc})"),
    ("password", "Password → {s}"),
    ("password", "set it to {s}, that's the {svc} password"),
    ("password", "pass: {s}"),
    ("password", "the pass for {svc} is {s}"),
    ("api-token", "my github token is {s}"),
    ("api-token", "stripe secret = {s}"),
    ("api-token", "here u go: token {s}"),
    ("aws-secret", "secret key: {s}"),
    ("aws-secret", "AWS_SECRET is {s}"),
    ("twilio-auth-token", "Twilio: SID AC{h32}, auth token {s}"),
    ("twilio-auth-token", "auth_token={s}"),
    ("discord-bot-token", "discord token {s}"),
    ("api-secret-hex", "api secret -> {s}"),
    ("api-secret-hex", "the consumer secret is {s}"),
    ("api-token", "signing key is {s}"),
    ("api-token", "encryption key: {s}"),
    ("api-token", "the vault unseal key is {s}"),
    ("password", "Kennwort: {s}"),
    ("password", "Mon mot de passe c'est {s}"),
    ("password", "la contraseña del {svc} es: {s}"),
    ("password", "A senha nova é {s}"),
    ("password", "wachtwoord = {s}"),
    ("password", "пароль для {svc} {s}"),
    ("password", "패스워드: {s}"),
    ("password", "パスワード {s}"),
    ("password", "密码 {s}"),
    ("password", "credentials: {user} / {s}"),
    ("password", "{svc} login {user}/{s}"),
    ("password", "password for {user}@{svc} is {s}"),
    ("password", "ssh pw is {s}"),
    ("password", "the passcode is {s}"),
    ("password", "PIN/password: {s}"),
]

# Prose that names a secret without holding one. {h40}, {h12}, {h7} a
# commit, {uuid}, {ver} a version, {date}.
LOOKALIKES = [
    ("prose", "the password is too short"),
    ("prose", "the password is stored in 1Password under '{svc} prod'"),
    ("prose", "your password must be at least 12 characters and include a symbol"),
    ("prose", "the password is the same as the one for {svc}"),
    ("prose", "password: see the vault entry for {svc}"),
    ("prose", "pw: ask {name}"),
    ("prose", "the passphrase is in the team vault"),
    ("prose", "the token is valid for 3600 seconds"),
    ("prose", "token: expires {date}T00:00:00Z"),
    ("prose", "the API key is set through OPENAI_API_KEY"),
    ("prose", "the API key is OPENAI_API_KEY in .env"),
    ("prose", "the key takeaway is that compaction runs nightly"),
    ("prose", "the secret to fast search is caching the index"),
    ("prose", "the token budget is 3000 tokens"),
    ("prose", "I reset my password again, third time this week"),
    ("prose", "never paste a password into the chat"),
    ("prose", "the password manager is 1Password"),
    ("prose", "the token is a JWT signed with RS256"),
    ("prose", "the password was wrong, {name} typed it again"),
    ("prose", "the key is to rotate before the audit"),
    ("prose", "pw reset link is broken on {svc}"),
    ("prose", "the secret is out: we ship on {date}"),
    ("prose", "API key rotation is scheduled for {date}"),
    ("prose", "the password is 'password', said nobody sensible"),
    ("path", "the key is ~/.ssh/id_ed25519"),
    ("path", "the key is at /etc/ssl/private/server.key"),
    ("path", "key: ~/.ssh/deploy_key"),
    ("path", "the secret is /run/secrets/db_password"),
    ("path", "secret: secrets/prod.env.example"),
    ("path", "the key file is id_ed25519.pub"),
    ("path", "the token is cached in ~/.config/gh/hosts.yml"),
    ("path", "password file: C:\\Users\\ops\\pgpass.conf"),
    ("commit", "the key commit is {h40}"),
    ("commit", "the token fix landed in {h7}"),
    ("commit", "the password reset was fixed in commit {h40}"),
    ("commit", "token refresh: merged {h12} into main"),
    ("commit", "secret rotation commit: {h40}"),
    ("commit", "the password change is {h12} on main"),
    ("uuid", "request id is {uuid}"),
    ("uuid", "the idempotency key is {uuid}"),
    ("uuid", "the cache key is {uuid}"),
    ("uuid", "token request {uuid} failed with 401"),
    ("uuid", "secret id: {uuid}"),
    ("uuid", "the key id is {uuid}"),
    ("version", "the token format changed in v{ver}"),
    ("version", "token version: {ver}-rc.1"),
    ("version", "the secret manager is v{ver}"),
    ("version", "the key algorithm is AES-256-GCM"),
    ("version", "the key is RSA-4096"),
    ("version", "password hashing is argon2id v19"),
    ("version", "the token model is gpt-4o-mini"),
    ("version", "key: en-US"),
    ("placeholder", "the token is <your-token>"),
    ("placeholder", "password: <password>"),
    ("placeholder", "API key: YOUR_API_KEY"),
    ("placeholder", "set the password to ${{DB_PASSWORD}}"),
    ("placeholder", "password: ****"),
    ("placeholder", "token: xxxxxxxxxxxx"),
    ("placeholder", "the secret is [REDACTED]"),
    ("placeholder", "pw: TODO"),
    ("placeholder", "password: changeme"),
    ("placeholder", "api key is sk-..."),
    ("placeholder", "token: {{{{ github_token }}}}"),
    ("placeholder", "the password is $PGPASSWORD"),
    ("number", "the token count is 4096"),
    ("number", "max tokens: 8192"),
    ("number", "the key length is 2048 bits"),
    ("number", "password length: 16"),
    ("number", "secret: true"),
    ("number", "the token limit is 128k"),
    ("code", "the key is `config.api_key`"),
    ("code", "the token is self.token"),
    ("code", "password: getpass()"),
    ("code", "the secret is read with os.environ['APP_SECRET']"),
    ("code", "the key is Ctrl+Shift+P"),
    ("code", "the token type is Bearer"),
    ("code", "the api key header is X-Api-Key"),
    ("url", "the token endpoint is https://auth.example.com/oauth/token"),
    ("url", "secret: https://vault.example.com/ui/vault/secrets"),
    ("url", "the password reset mail goes to ops@example.com"),
    ("url", "key contact: ops@acme.io"),
    ("url", "the secret server is 10.0.3.7:8200"),
    ("lang", "das Passwort ist zu kurz"),
    ("lang", "le mot de passe est expiré depuis hier"),
    ("lang", "la contraseña es obligatoria"),
    ("lang", "비밀번호는 12자 이상이어야 합니다"),
    ("lang", "パスワードは8文字以上です"),
    ("lang", "密码是必填项"),
    ("lang", "пароль: обязателен"),
    ("lang", "Passwort: siehe Vault"),
    ("lang", "le token est valide 3600 secondes"),
    ("lang", "la clave de API está en el gestor"),
    ("lang", "a senha é a mesma de {svc}"),
    ("lang", "het wachtwoord is verlopen"),
    ("lang", "API 키는 금고에 보관한다"),
    ("lang", "トークンは毎日更新されます"),
    # The second batch (see TEMPLATES).
    ("prose", "password reset emails go out at 09:00"),
    ("prose", "tokens are rotated every 24h"),
    ("prose", "the secret key must be 32 bytes"),
    ("prose", "who has the password for {svc}?"),
    ("prose", "password: use the one from the onboarding doc"),
    ("prose", "the token expired at 14:32 so the job failed"),
    ("prose", "api key: see LastPass"),
    ("prose", "secret: see ticket OPS-1234"),
    ("placeholder", "token: sk_live_… (redacted in the screenshot)"),
    ("prose", "the key ID is AKIA-style, not the secret"),
    ("code", "key: Enter"),
    ("prose", "the password field accepts Unicode"),
    ("prose", "pw: same as before"),
    ("commit", "git commit -m 'rotate token' -> {h7}"),
    ("prose", "the password is hashed with bcrypt (cost 12)"),
    ("placeholder", "secret: ${{{{ secrets.DEPLOY_KEY }}}}"),
    ("code", "token = os.environ.get('TOKEN')"),
    ("prose", "the API key is 32 characters long"),
    ("code", "key: F12"),
    ("number", "token ids 50256 and 50257 are special"),
    ("prose", "the secret recipe is 2 parts gin"),
    ("lang", "das Token ist abgelaufen"),
    ("lang", "le mot de passe doit contenir 12 caractères"),
    ("lang", "비밀번호를 잊어버렸어요"),
    ("lang", "密码错误，请重试"),
    ("prose", "the password hint is 'first pet'"),
    ("prose", "key = value pairs in the .env file"),
    ("prose", "the token is in the Authorization header"),
    ("placeholder", "password: (empty)"),
    ("number", "session token TTL is 15m"),
    ("version", "the key is v2 of the schema"),
    ("number", "secret: 5 of them are missing"),
    ("placeholder", "passphrase: N/A"),
    ("placeholder", "the token is 0x7f3a... in the trace"),
    ("placeholder", "api_key: \"\""),
    ("version", "the release tag is v1.2.3 and the secret is safe"),
    ("prose", "my password is the same as last week's"),
]


def fill(t, s=""):
    svc = R.choice(SERVICES)
    return t.format(s=s, svc=svc, Svc=svc[0].upper() + svc[1:], user=R.choice(USERS),
                    name=R.choice(NAMES), h40=rs(HEX, 40), h32=rs(HEX, 32), h12=rs(HEX, 12), h7=rs(HEX, 7),
                    uuid="-".join(rs(HEX, n) for n in (8, 4, 4, 4, 12)),
                    ver=f"{R.randrange(1, 9)}.{R.randrange(0, 30)}.{R.randrange(0, 20)}",
                    date=f"2026-{R.randrange(1, 13):02d}-{R.randrange(1, 29):02d}")


def main():
    secrets = []
    for i, (kind, t) in enumerate(TEMPLATES):
        half = "AB"[i % 2]
        for _ in range(2):
            s = VALUES[kind]()
            secrets.append((half, kind, s, fill(t, s)))
    looks = []
    for i, (kind, t) in enumerate(LOOKALIKES):
        half = "AB"[i % 2]
        for _ in range(2):
            line = fill(t)
            if (half, kind, line) not in looks:
                looks.append((half, kind, line))
    here = Path(__file__).parent
    for name, header, rows in [
        ("nl_secrets.tsv", "# half\tkind\tsecret\tline (generated by gen_nl_secrets.py; not real secrets)", secrets),
        ("nl_lookalikes.tsv", "# half\tkind\tline (must come out unchanged)", looks),
    ]:
        with (here / name).open("w") as f:
            f.write(header + "\n")
            for row in rows:
                assert all("\t" not in x and "\n" not in x for x in row), row
                f.write("\t".join(row) + "\n")
        print(f"{len(rows)} rows -> {here / name}")


if __name__ == "__main__":
    main()
