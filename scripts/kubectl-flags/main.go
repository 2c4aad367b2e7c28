// Command kubectl-flags prints kubectl's command tree as JSON: every command path with every flag
// it takes (its own and those it inherits), as kubectl's source defines them, for the offline test
// tests/offline/kubectl_flags.rs (recorded by scripts/golden.sh into testdata/golden).
//
// The tree is built as kubectl's main builds it (k8s.io/kubernetes/cmd/kubectl): the default
// command, then component-base's logging flags on the root.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
)

type flag struct {
	Name                string `json:"name"`
	Shorthand           string `json:"shorthand,omitempty"`
	Type                string `json:"type"`
	Default             string `json:"default"`
	NoOptDefault        string `json:"no_opt_default,omitempty"`
	Hidden              bool   `json:"hidden,omitempty"`
	Deprecated          string `json:"deprecated,omitempty"`
	ShorthandDeprecated string `json:"shorthand_deprecated,omitempty"`
}

// A command: its own flags in full, and the names of those it inherits (each defined in full where
// it is a command's own: the root's, or a parent's such as `config`'s).
type command struct {
	Path       string   `json:"path"`
	Aliases    []string `json:"aliases,omitempty"`
	Hidden     bool     `json:"hidden,omitempty"`
	Deprecated string   `json:"deprecated,omitempty"`
	Inherited  []string `json:"inherited"`
	Flags      []flag   `json:"-"`
}

// home is the user's home directory, shown as $HOME in defaults (--cache-dir's) so that the
// output does not depend on who runs it.
var home, _ = os.UserHomeDir()

func flagsOf(set *pflag.FlagSet) []flag {
	var flags []flag
	set.VisitAll(func(f *pflag.Flag) {
		flags = append(flags, flag{
			Name:                f.Name,
			Shorthand:           f.Shorthand,
			Type:                f.Value.Type(),
			Default:             strings.Replace(f.DefValue, home, "$HOME", 1),
			NoOptDefault:        f.NoOptDefVal,
			Hidden:              f.Hidden,
			Deprecated:          f.Deprecated,
			ShorthandDeprecated: f.ShorthandDeprecated,
		})
	})
	return flags
}

func walk(c *cobra.Command, commands *[]command) {
	path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "kubectl"), " ")
	inherited := []string{}
	for _, f := range flagsOf(c.InheritedFlags()) {
		inherited = append(inherited, f.Name)
	}
	*commands = append(*commands, command{
		Path: path, Aliases: c.Aliases, Hidden: c.Hidden, Deprecated: c.Deprecated,
		Inherited: inherited, Flags: flagsOf(c.LocalFlags()),
	})
	for _, sub := range c.Commands() {
		walk(sub, commands)
	}
}

// kubectlVersion is the version of k8s.io/kubectl this program was built with.
func kubectlVersion() string {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubectl" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	// No preferences file: its defaults and aliases are not kubectl's definitions.
	os.Setenv("KUBERC", "off")
	os.Args = os.Args[:1]
	root := cmd.NewDefaultKubectlCommand()
	logs.AddFlags(root.PersistentFlags())
	var commands []command
	walk(root, &commands)
	fmt.Printf("{\n \"kubectl_module\": %q,\n \"commands\": [", kubectlVersion())
	for i, c := range commands {
		// A command a line, then its own flags a line each, for diffs that read well.
		header := strings.TrimSuffix(mustJSON(c), "}")
		fmt.Printf("%s\n  %s, \"flags\": [", comma(i), header)
		for j, f := range c.Flags {
			fmt.Printf("%s\n   %s", comma(j), mustJSON(f))
		}
		fmt.Print("]}")
	}
	fmt.Println("\n ]\n}")
}

func comma(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

func mustJSON(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return string(out)
}
