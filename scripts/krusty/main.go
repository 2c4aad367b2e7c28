// krusty runs kustomize's own end-to-end tests (package krusty of sigs.k8s.io/kustomize/api
// v0.21.1, the api of kustomize v5.8.1, which kubectl 1.37.1 embeds) against an external
// binary's `kustomize` verb, and counts what passes against kubectl's recorded list.
//
// The tests come from the Go module cache (the module proxy fills it): the module is copied to a
// work directory, two of its files are replaced by ours from _overlay (krusty/kustomizer.go,
// whose Kustomizer.Run runs `$KRUSTY_BINARY kustomize [flags] DIR` on the test's files written to
// disk; testutils/kusttest/plugintestenv.go, which skips the tests needing kustomize's Go or exec
// plugins), and `go test -json ./krusty/` runs once. Tests skip themselves for what the machine
// lacks (helm); those failing with kubectl itself are left out by the recorded kubectl list.
//
//	go run . -binary PATH                   N of M, failing on a change from the baseline
//	go run . -binary KUBECTL -record kubectl  records the tests kubectl passes
//	go run . -binary KUBEUPD -record kubeupd  records the baseline (of those, kubeupd's)
//
// scripts/krusty.sh runs it from the repository's root; see docs/tests.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// module is the kustomize api whose krusty tests run: kustomize v5.8.1's, in kubectl 1.37.1.
const module = "sigs.k8s.io/kustomize/api@v0.21.1"

// The lists in the testdata directory: kubectl's passing tests, and kubeupd's baseline.
const (
	kubectlList  = "kubectl-1.37.1.txt"
	baselineList = "kubeupd.txt"
)

func main() {
	binary := flag.String("binary", "", "the binary whose `kustomize` verb builds (kubectl or kubeupd)")
	record := flag.String("record", "", "kubectl: record the tests the binary passes as kubectl's list; kubeupd: record the baseline")
	run := flag.String("run", "", "only the tests matching this regular expression (go test -run); nothing compared")
	testdata := flag.String("testdata", "testdata/krusty", "the directory of the recorded lists")
	overlay := flag.String("overlay", "scripts/krusty/_overlay", "the files that replace the module's")
	work := flag.String("work", filepath.Join(cacheDir(), "krusty"), "the work directory (the module's copy, the last run's log)")
	verbose := flag.Bool("v", false, "print the output of every counted test that fails")
	events := flag.String("events", "", "read a run's events (go test -json, as last-run.json keeps them) instead of running the tests")
	flag.Parse()
	if err := main1(*binary, *record, *run, *testdata, *overlay, *work, *events, *verbose); err != nil {
		fmt.Fprintf(os.Stderr, "krusty: %v\n", err)
		os.Exit(1)
	}
}

func cacheDir() string {
	if dir := os.Getenv("KUBEUPD_CACHE"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "kubeupd")
}

func main1(binary, record, run, testdata, overlay, work, events string, verbose bool) error {
	if binary == "" {
		return errors.New("-binary is required")
	}
	if record != "" && record != "kubectl" && record != "kubeupd" {
		return fmt.Errorf("-record %q: kubectl or kubeupd", record)
	}
	if record != "" && run != "" {
		return errors.New("-record records a whole run: no -run")
	}
	binary, err := filepath.Abs(binary)
	if err != nil {
		return err
	}
	for _, dir := range []*string{&testdata, &overlay, &work, &events} {
		if *dir == "" {
			continue
		}
		if *dir, err = filepath.Abs(*dir); err != nil {
			return err
		}
	}
	started := time.Now()
	logPath := filepath.Join(work, "last-run.json")
	var res *results
	if events != "" {
		// A run's events again (its -binary only names it).
		log, err := os.ReadFile(events)
		if err != nil {
			return err
		}
		res, _ = parseEvents(log)
		logPath = events
	} else {
		copyDir, err := copyModule(work, overlay)
		if err != nil {
			return err
		}
		var log []byte
		res, log, err = goTest(copyDir, binary, run)
		if writeErr := os.WriteFile(logPath, log, 0o644); writeErr != nil {
			return writeErr
		}
		if err != nil {
			return fmt.Errorf("%w (go test's events in %s)", err, logPath)
		}
	}
	fmt.Printf("krusty: %d tests of %s run against %s in %s (events in %s)\n",
		len(res.leaves()), module, binary, time.Since(started).Round(time.Second), logPath)
	res.printSkips()

	switch record {
	case "kubectl":
		return writeList(filepath.Join(testdata, kubectlList), recordedHeader(binary, "kubectl")+res.failures(), res.passing(nil))
	case "kubeupd":
		counted, err := readList(filepath.Join(testdata, kubectlList))
		if err != nil {
			return err
		}
		return writeList(filepath.Join(testdata, baselineList), recordedHeader(binary, "kubeupd"), res.passing(counted))
	}
	counted, err := readList(filepath.Join(testdata, kubectlList))
	if err != nil {
		return err
	}
	baseline, err := readList(filepath.Join(testdata, baselineList))
	if err != nil {
		return err
	}
	return compare(res, counted, baseline, run != "", verbose)
}

// copyModule copies the module into work, with the overlay's files in place of its own, and
// returns the copy's directory.
func copyModule(work, overlay string) (string, error) {
	src, err := moduleDir()
	if err != nil {
		return "", err
	}
	copyDir := filepath.Join(work, "api")
	if err := os.RemoveAll(copyDir); err != nil {
		return "", err
	}
	if err := copyTree(src, copyDir); err != nil {
		return "", err
	}
	return copyDir, copyTree(overlay, copyDir)
}

// moduleDir is the module's directory in the module cache, downloaded first if need be.
func moduleDir() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s%v", module, info.Error, err)
	}
	return info.Dir, nil
}

// copyTree copies the files below src into dst, writable (the module cache's are not).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if entry.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, content, 0o644)
	})
}

// event is one line of `go test -json`.
type event struct {
	Action string
	Test   string
	Output string
}

// results are the tests' outcomes (pass, fail, skip) and their output, by name (subtests as
// TEST/SUBTEST, as go test names them).
type results struct {
	outcome map[string]string
	output  map[string]*strings.Builder
}

// goTest runs the krusty package's tests in the module's copy against binary.
func goTest(dir, binary, run string) (*results, []byte, error) {
	args := []string{"test", "-json", "-count=1", "-timeout=30m"}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, "./krusty/")
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "KRUSTY_BINARY="+binary)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	res, build := parseEvents(out)
	if len(res.outcome) == 0 {
		return nil, out, fmt.Errorf("go test ran no test (%v):\n%s%s", runErr, stderr.String(), build)
	}
	return res, out, nil
}

// parseEvents reads go test's events: the results, and the lines of no test (build errors).
func parseEvents(out []byte) (*results, string) {
	res := &results{outcome: map[string]string{}, output: map[string]*strings.Builder{}}
	var build strings.Builder
	scanner := bufio.NewScanner(bytes.NewReader(out))
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		var e event
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			build.WriteString(scanner.Text() + "\n")
			continue
		}
		if e.Test == "" {
			build.WriteString(e.Output)
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			res.outcome[e.Test] = e.Action
		case "output":
			if res.output[e.Test] == nil {
				res.output[e.Test] = &strings.Builder{}
			}
			res.output[e.Test].WriteString(e.Output)
		}
	}
	return res, build.String()
}

// leaves are the tests without subtests, sorted.
func (r *results) leaves() []string {
	parents := map[string]bool{}
	for name := range r.outcome {
		for i := strings.LastIndex(name, "/"); i > 0; i = strings.LastIndex(name[:i], "/") {
			parents[name[:i]] = true
		}
	}
	var leaves []string
	for name := range r.outcome {
		if !parents[name] {
			leaves = append(leaves, name)
		}
	}
	sort.Strings(leaves)
	return leaves
}

// passing are the leaves that passed, of those in among when it is not nil.
func (r *results) passing(among map[string]bool) []string {
	var names []string
	for _, name := range r.leaves() {
		if r.outcome[name] == "pass" && (among == nil || among[name]) {
			names = append(names, name)
		}
	}
	return names
}

// failures are the leaves that failed, as comment lines with the first words of their failure.
func (r *results) failures() string {
	var lines strings.Builder
	for _, name := range r.leaves() {
		if r.outcome[name] == "fail" {
			fmt.Fprintf(&lines, "# fails: %s: %s\n", name, r.failure(name))
		}
	}
	return lines.String()
}

// failure is what a failed test says failed: testify's `Error:` (with the line after it when it
// only names the kind of failure), else the first message of a `file.go:N:` line, shortened.
func (r *results) failure(name string) string {
	if r.output[name] == nil {
		return "no output"
	}
	lines := strings.Split(r.output[name].String(), "\n")
	message := ""
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "Error:"); ok {
			message = strings.TrimSpace(rest)
			if strings.HasSuffix(message, ":") && i+1 < len(lines) {
				message += " " + strings.TrimSpace(lines[i+1])
			}
			break
		}
		parts := strings.SplitN(line, ": ", 2)
		if message == "" && len(parts) == 2 && strings.Contains(parts[0], ".go:") && !strings.HasPrefix(parts[1], "=====") {
			message = strings.TrimSpace(parts[1])
		}
	}
	if message == "" {
		return "no message"
	}
	if len(message) > 160 {
		message = message[:160] + "..."
	}
	return message
}

// printSkips prints the skipped tests by reason (the message of their t.Skip).
func (r *results) printSkips() {
	byReason := map[string][]string{}
	for _, name := range r.leaves() {
		if r.outcome[name] == "skip" {
			reason := r.skipReason(name)
			byReason[reason] = append(byReason[reason], name)
		}
	}
	reasons := make([]string, 0, len(byReason))
	for reason := range byReason {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		fmt.Printf("krusty: skipped (%s): %s\n", reason, strings.Join(byReason[reason], " "))
	}
}

// skipReason is the message a skipped test gave (its last line of output before `--- SKIP`).
func (r *results) skipReason(name string) string {
	reason := "no reason given"
	if r.output[name] == nil {
		return reason
	}
	for _, line := range strings.Split(r.output[name].String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			continue
		}
		// `file_test.go:12: message`
		if parts := strings.SplitN(line, ": ", 2); len(parts) == 2 && strings.Contains(parts[0], ".go:") {
			line = parts[1]
		}
		reason = line
	}
	return reason
}

// compare prints N of M and fails when the baseline differs from this run: a test of the
// baseline that fails (a regression), or a counted test that passes and is not in it (the
// baseline is to be recorded again), or a counted test that did not run at all.
func compare(r *results, counted, baseline map[string]bool, partial, verbose bool) error {
	var passing, failing, missing, regressed, gained []string
	for name := range counted {
		outcome, ran := r.outcome[name]
		switch {
		case !ran:
			missing = append(missing, name)
		case outcome == "pass":
			passing = append(passing, name)
			if !baseline[name] {
				gained = append(gained, name)
			}
		default:
			failing = append(failing, name)
			if baseline[name] {
				regressed = append(regressed, name)
			}
		}
	}
	for _, list := range [][]string{failing, missing, regressed, gained} {
		sort.Strings(list)
	}
	if partial {
		fmt.Printf("krusty: %d of the %d tests run that kubectl passes pass (-run: nothing compared)\n",
			len(passing), len(passing)+len(failing))
		printFailures(r, failing, verbose)
		return nil
	}
	fmt.Printf("krusty: passes %d of the %d tests kubectl 1.37.1 passes (baseline: %d)\n", len(passing), len(counted), len(baseline))
	printFailures(r, failing, verbose)
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("%d tests of kubectl's list did not run: %s", len(missing), strings.Join(missing, " ")))
	}
	if len(regressed) > 0 {
		printFailures(r, regressed, true)
		problems = append(problems, fmt.Sprintf("%d tests of the baseline fail: %s", len(regressed), strings.Join(regressed, " ")))
	}
	if len(gained) > 0 {
		problems = append(problems, fmt.Sprintf("%d tests pass that the baseline does not list (record it: scripts/krusty.sh --record kubeupd): %s",
			len(gained), strings.Join(gained, " ")))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// printFailures names the failing tests, with their output when verbose.
func printFailures(r *results, failing []string, verbose bool) {
	if len(failing) == 0 {
		return
	}
	if !verbose {
		fmt.Printf("krusty: failing (%d): %s\n", len(failing), strings.Join(failing, " "))
		return
	}
	for _, name := range failing {
		fmt.Printf("krusty: --- %s\n", name)
		if out := r.output[name]; out != nil {
			fmt.Print(out.String())
		}
	}
}

// recordedHeader says what a list is and how it was made.
func recordedHeader(binary, what string) string {
	out, _ := exec.Command(binary, "version", "--client").CombinedOutput()
	version := strings.TrimSpace(strings.ReplaceAll(string(out), "\n", "; "))
	var header strings.Builder
	if what == "kubectl" {
		fmt.Fprintf(&header, "# The krusty tests of %s (kustomize v5.8.1) that kubectl passes through\n", module)
		header.WriteString("# scripts/krusty.sh (the kubeupd runs count only these), recorded by\n")
		header.WriteString("# `scripts/krusty.sh --record kubectl` with the reference kubectl (scripts/reference-kubectl.sh):\n")
	} else {
		header.WriteString("# kubeupd's baseline: the tests of kubectl's list (kubectl-1.37.1.txt) that kubeupd passes,\n")
		header.WriteString("# recorded by `scripts/krusty.sh --record kubeupd`; a run fails when it differs from this list:\n")
	}
	fmt.Fprintf(&header, "# %s version --client: %s\n", filepath.Base(binary), version)
	if what == "kubectl" {
		header.WriteString("# The tests that fail with kubectl (with the start of their failure) are listed as comments.\n")
	}
	header.WriteString("# One test a line, subtests as TEST/SUBTEST.\n")
	return header.String()
}

func writeList(path, header string, names []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	content := header + strings.Join(names, "\n") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	fmt.Printf("krusty: %d tests recorded in %s\n", len(names), path)
	return nil
}

func readList(path string) (map[string]bool, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	content, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(content), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names[line] = true
		}
	}
	return names, nil
}
