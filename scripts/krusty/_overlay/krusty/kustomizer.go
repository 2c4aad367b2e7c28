// kubeupd's krusty harness (scripts/krusty): this file takes the place of kustomize's
// krusty/kustomizer.go in the copy of sigs.k8s.io/kustomize/api that scripts/krusty.sh makes for
// a run. Kustomizer.Run builds nothing in memory: it writes the file system it is given to a
// temporary directory (unless it is already on disk), runs
//
//	$KRUSTY_BINARY kustomize [the flags of the options] DIR
//
// and gives back what the binary printed: the objects (read into a ResMap whose AsYaml is the
// printed text byte for byte while the map is unchanged) or, on a non-zero exit, the error kubectl
// prints (stderr from its `error: ` line, that prefix taken off). The temporary directory is
// written back as `/` in both, as the in-memory file system names its paths.
package krusty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Kustomizer runs the external binary's kustomize (the fields are upstream's).
type Kustomizer struct {
	options     *Options
	depProvider *provider.DepProvider
}

// MakeKustomizer returns a Kustomizer with the given options.
func MakeKustomizer(o *Options) *Kustomizer {
	return &Kustomizer{options: o, depProvider: provider.NewDepProvider()}
}

// binaryTimeout bounds one run of the binary.
const binaryTimeout = 2 * time.Minute

// Run builds path of fSys with $KRUSTY_BINARY.
func (b *Kustomizer) Run(fSys filesys.FileSystem, path string) (resmap.ResMap, error) {
	binary := os.Getenv("KRUSTY_BINARY")
	if binary == "" {
		return nil, errors.New("krusty harness: KRUSTY_BINARY is not set")
	}
	dir, root, err := onDisk(fSys, path)
	if root != "" {
		defer os.RemoveAll(root)
	}
	if err != nil {
		return nil, fmt.Errorf("krusty harness: %w", err)
	}
	args := append([]string{"kustomize"}, flags(b.options)...)
	args = append(args, dir)
	ctx, cancel := context.WithTimeout(context.Background(), binaryTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	if root != "" {
		cmd.Dir = root
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if os.Getenv("KRUSTY_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "krusty harness: %s %s\n%s", binary, strings.Join(args, " "), stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) && ctx.Err() == nil {
		return nil, errors.New(errorText(unroot(stderr.String(), root)))
	}
	if runErr != nil {
		return nil, fmt.Errorf("krusty harness: running %s: %w", binary, runErr)
	}
	raw := []byte(unroot(stdout.String(), root))
	m, err := resmap.NewFactory(b.depProvider.GetResourceFactory()).NewResMapFromBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("krusty harness: %s printed what kustomize cannot read back: %w", binary, err)
	}
	read, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("krusty harness: %w", err)
	}
	return &printed{ResMap: m, raw: raw, read: read}, nil
}

// printed is the ResMap read from the binary's output; its AsYaml is the output itself as long
// as the map still writes what it wrote when read (a test that changes the map gets the map).
type printed struct {
	resmap.ResMap
	raw, read []byte
}

func (p *printed) AsYaml() ([]byte, error) {
	now, err := p.ResMap.AsYaml()
	if err != nil || !bytes.Equal(now, p.read) {
		return now, err
	}
	return p.raw, nil
}

// flags are the command-line flags of kubectl's kustomize (kustomize's build) that give o.
func flags(o *Options) []string {
	var line []string
	switch o.Reorder {
	case ReorderOptionNone, ReorderOptionLegacy:
		line = append(line, "--reorder="+string(o.Reorder))
	}
	if o.LoadRestrictions == types.LoadRestrictionsNone {
		line = append(line, "--load-restrictor="+types.LoadRestrictionsNone.String())
	}
	if o.AddManagedbyLabel {
		line = append(line, "--enable-managedby-label")
	}
	c := o.PluginConfig
	if c == nil {
		return line
	}
	if c.PluginRestrictions == types.PluginRestrictionsNone {
		line = append(line, "--enable-alpha-plugins")
	}
	f := c.FnpLoadingOptions
	if f.Network {
		line = append(line, "--network")
	}
	if f.NetworkName != "" && f.NetworkName != "bridge" {
		line = append(line, "--network-name="+f.NetworkName)
	}
	for _, m := range f.Mounts {
		line = append(line, "--mount="+m)
	}
	for _, e := range f.Env {
		line = append(line, "--env="+e)
	}
	if f.AsCurrentUser {
		line = append(line, "--as-current-user")
	}
	// f.EnableExec has no flag in kubectl's kustomize: such a build fails as kubectl's does.
	h := c.HelmConfig
	if h.Enabled {
		line = append(line, "--enable-helm")
	}
	if h.Command != "" && h.Command != "helm" {
		line = append(line, "--helm-command="+h.Command)
	}
	for _, v := range h.ApiVersions {
		line = append(line, "--helm-api-versions="+v)
	}
	if h.KubeVersion != "" {
		line = append(line, "--helm-kube-version="+h.KubeVersion)
	}
	if h.Debug {
		line = append(line, "--helm-debug")
	}
	return line
}

// onDisk gives the directory to build: path itself when fSys is the disk or path is a URL, else
// path below a new temporary directory (root) that holds every file of the in-memory fSys.
func onDisk(fSys filesys.FileSystem, path string) (dir, root string, err error) {
	if fmt.Sprintf("%T", fSys) == "filesys.fsOnDisk" || strings.Contains(path, "://") || strings.HasPrefix(path, "github.com/") {
		return path, "", nil
	}
	root, err = os.MkdirTemp("", "krusty-")
	if err != nil {
		return "", "", err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", root, err
	}
	err = fSys.Walk(filesys.Separator, func(name string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(root, name)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		content, err := fSys.ReadFile(name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, content, 0o644)
	})
	if err != nil {
		return "", root, err
	}
	return filepath.Join(root, filesys.Separator, path), root, nil
}

// unroot writes the temporary root back as the in-memory file system's root `/`.
func unroot(text, root string) string {
	if root == "" {
		return text
	}
	text = strings.ReplaceAll(text, root+"/", "/")
	return strings.ReplaceAll(text, root, "/")
}

// errorText is the error in kubectl's stderr: from its first `error: ` line on, without that
// prefix and the last newline; all of stderr when no line starts so.
func errorText(stderr string) string {
	text := stderr
	if strings.HasPrefix(stderr, "error: ") {
		text = stderr[len("error: "):]
	} else if i := strings.Index(stderr, "\nerror: "); i >= 0 {
		text = stderr[i+len("\nerror: "):]
	}
	return strings.TrimSuffix(text, "\n")
}
