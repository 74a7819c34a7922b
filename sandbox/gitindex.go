package sandbox

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// errIndexFormat is a git index this reader does not understand.
var errIndexFormat = errors.New("not a git index this reader knows")

// gitlinkMode is the mode of a gitlink (a submodule's commit) in an index.
const gitlinkMode = 0o160000

// readGitlinks returns the paths of the gitlinks in the index of gitDir
// (its index file, and the shared index a split index names), sorted. A
// missing index has none.
func readGitlinks(gitDir string, hashLen int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	links, shared, err := parseIndex(b, hashLen)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(gitDir, "index"), err)
	}
	if shared != "" {
		sb, err := os.ReadFile(filepath.Join(gitDir, "sharedindex."+shared))
		if err != nil {
			return nil, err
		}
		more, _, err := parseIndex(sb, hashLen)
		if err != nil {
			return nil, fmt.Errorf("shared index %s: %w", shared, err)
		}
		links = append(links, more...)
	}
	slices.Sort(links)
	return slices.Compact(links), nil
}

// parseIndex returns the paths of the gitlink entries of the index b
// (versions 2 to 4, git's index-format.txt), and the name of the shared
// index its "link" extension names, if any. Entries are read by their
// mode alone: a gitlink is what makes git enter a directory as a
// repository.
func parseIndex(b []byte, hashLen int) (links []string, shared string, err error) {
	if len(b) < 12+hashLen || string(b[:4]) != "DIRC" {
		return nil, "", errIndexFormat
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, "", errIndexFormat
	}
	n := binary.BigEndian.Uint32(b[8:])
	end := len(b) - hashLen
	off, prev := 12, ""
	fixed := 40 + hashLen + 2 // stat data, object name, flags
	for i := uint32(0); i < n; i++ {
		if off+fixed > end {
			return nil, "", errIndexFormat
		}
		mode := binary.BigEndian.Uint32(b[off+24:])
		flags := binary.BigEndian.Uint16(b[off+40+hashLen:])
		p := off + fixed
		if version >= 3 && flags&0x4000 != 0 {
			p += 2
		}
		if p > end {
			return nil, "", errIndexFormat
		}
		var name string
		var next int
		if version == 4 {
			strip, w := gitVarint(b[p:end])
			if w == 0 || strip > uint64(len(prev)) {
				return nil, "", errIndexFormat
			}
			p += w
			nul := slices.Index(b[p:end], 0)
			if nul < 0 {
				return nil, "", errIndexFormat
			}
			name = prev[:len(prev)-int(strip)] + string(b[p:p+nul])
			next = p + nul + 1
		} else {
			nul := slices.Index(b[p:end], 0)
			if nul < 0 {
				return nil, "", errIndexFormat
			}
			name = string(b[p : p+nul])
			next = off + (p-off+nul+8)&^7
		}
		if mode&0o170000 == gitlinkMode {
			links = append(links, name)
		}
		prev, off = name, next
	}
	for off+8 <= end {
		sig, size := string(b[off:off+4]), int(binary.BigEndian.Uint32(b[off+4:]))
		off += 8
		if size < 0 || off+size > end {
			return nil, "", errIndexFormat
		}
		if sig == "link" && size >= hashLen {
			shared = hex.EncodeToString(b[off : off+hashLen])
		}
		off += size
	}
	return links, shared, nil
}

// gitVarint decodes git's offset varint (varint.c), returning the value and
// the bytes read, 0 on malformed input.
func gitVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v, i := uint64(c&127), 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		v++
		c = b[i]
		v = v<<7 + uint64(c&127)
		i++
	}
	return v, i
}
