//! Secrets: a file that holds one is denied by every spelling of its path, and a command that
//! would print, hand over or read one in passing (a variable, another process's environment, a
//! file named at run time, a tree with one inside) asks.

use super::Verdict;
use super::tests::check;

/// Secret files and memory, by path, by `//`, through `/proc` and `/dev/fd`, from git history.
#[test]
fn secret_files_are_denied_by_every_spelling() {
    check(
        &[
            ("git show HEAD:.env", "environment secrets"),
            ("git cat-file -p HEAD:.env", "environment secrets"),
            ("cat /dev/fd/../environ", "environment"),
            ("cat /etc/shadow-", "password hashes"),
            ("cat /var/backups/shadow.bak", "backups"),
            (
                "cat /var/run/secrets/kubernetes.io/serviceaccount/token",
                "secrets",
            ),
            ("cat .envrc", "credentials"),
            ("cat ~/.bash_history", "history"),
            ("cat ~/.m2/settings.xml", "Maven"),
            ("cat terraform.tfstate", "credentials"),
            ("cat ~/.claude/.credentials.json", "AI assistant"),
            ("cat ~/.config/sops/age/keys.txt", "SOPS"),
            ("cat .dev.vars", "credentials"),
            ("cat ~//.aws/credentials", "AWS"),
            ("grep -r . ~//.aws", "AWS"),
            ("cat ~/.config/doctl/config.yaml", "DigitalOcean"),
            ("cat ~/.local/share/fish/fish_history", "history"),
            ("cat ~/.viminfo", "history"),
            ("cat ~/.lesshst", "history"),
            ("cat ~/.local/share/nvim/shada/main.shada", "history"),
            ("cat ~/.sqlite_history", "history"),
            ("cat ~/.irb_history", "history"),
            ("cat ~/.Rhistory", "history"),
            ("cat ~/.ipython/profile_default/history.sqlite", "history"),
            ("cp ~/.rediscli_history x", "history"),
            ("cat /proc/1/task/1/mem", "memory"),
            ("tail -c 100 /proc/self/mem", "memory"),
            ("cat /proc/kcore", "kernel memory"),
            ("echo x > /dev/fd/../cwd/src/main.rs", "another process"),
            ("xxd /dev/mem", "raw memory"),
            ("cat /proc/1/root/etc/shadow", "another process"),
            ("cat /sys/firmware/efi/efivars/x", "firmware"),
        ],
        Verdict::Deny,
    );
}

/// Commands that print a secret, read one in a tree, or read files named only at run time.
#[test]
fn commands_that_could_reveal_a_secret_ask() {
    check(
        &[
            ("printenv GITHUB_TOKEN", "secret"),
            ("ps auxeww", "environments"),
            (
                "kubectl get --raw=/api/v1/namespaces/default/secrets",
                "secrets",
            ),
            (
                "aws ssm get-parameter --name=/prod/db/pw --with-decryption",
                "secrets",
            ),
            (
                "awk 'BEGIN{ARGV[1]=ENVIRON[\"HOME\"] \"/x\";ARGC=2}{print}'",
                "environment",
            ),
            ("echo 'touch x' | xargs -I{} sh -c '{}'", "computed"),
            ("kubectl config view --flatten=true", "raw"),
            ("jq -n env", "environment"),
            ("uv run --env-file=.env pytest", ""),
            ("grep -r hunter node_modules", ".env included"),
            ("echo x | sort --files0-from=-", "computed at run time"),
            ("echo x | wc --files0-from=-", "computed at run time"),
            ("grep -R key linked", "included (a secret)"),
            ("rg --follow key linked", "included (a secret)"),
            ("echo $AWS_SECRET_ACCESS_KEY", "holds a secret"),
            ("echo \"${GITHUB_TOKEN}\"", "holds a secret"),
            // What a secret variable's length or part tells, and other readers of the environment.
            ("echo ${#GITHUB_TOKEN}", "holds a secret"),
            ("echo \"${#AWS_SECRET_ACCESS_KEY}\"", "holds a secret"),
            ("echo ${GITHUB_TOKEN:0:3}", "holds a secret"),
            ("x=${#GITHUB_TOKEN}; echo $x", "holds a secret"),
            ("[[ $GITHUB_TOKEN == a* ]] && echo y", "holds a secret"),
            ("case $GITHUB_TOKEN in a*) echo y;; esac", "holds a secret"),
            ("for c in ${GITHUB_TOKEN}; do :; done", "holds a secret"),
            ("yq -n 'env(HOME)'", "environment"),
            ("yq -n 'strenv(GITHUB_TOKEN)'", "environment"),
            ("yq -n '$ENV'", "environment"),
            ("yq -n 'load(\"/etc/x\")'", "loads"),
            // Passwords, connection strings and signed tokens under other names.
            ("echo $DB_PASS", "holds a secret"),
            ("echo $MYSQL_PWD", "holds a secret"),
            ("echo $DATABASE_URL", "holds a secret"),
            ("echo $REDIS_URL", "holds a secret"),
            ("echo $MONGODB_URI", "holds a secret"),
            ("echo $GH_PAT", "holds a secret"),
            ("echo $STRIPE_SK", "holds a secret"),
            ("echo $MNEMONIC", "holds a secret"),
            ("echo $SLACK_WEBHOOK", "holds a secret"),
            ("echo $SENTRY_DSN", "holds a secret"),
            ("echo $SLACK_WEBHOOK_URL", "holds a secret"),
            ("echo $CI_JOB_JWT", "holds a secret"),
            ("echo $PGPASS", "holds a secret"),
            ("echo $API_PASS", "holds a secret"),
            ("echo $ADMIN_PW", "holds a secret"),
            ("echo $JWT", "holds a secret"),
            ("echo $PASSPHRASE", "holds a secret"),
        ],
        Verdict::Ask,
    );
    check(
        &[
            ("echo $PWD", ""),
            ("echo $OLDPWD", ""),
            ("echo $PATH", ""),
            ("echo $HOME", ""),
        ],
        Verdict::Allow,
    );
}
