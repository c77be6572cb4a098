// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The checks below are the kinds of value settings take. Each returns the
// Check of a Setting; the Setting's Form says the same in words.

// Duration accepts a Go duration above zero, or zero too when zero is true.
func Duration(zero bool) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return errors.New("not a Go duration")
		case d < 0 || (d == 0 && !zero):
			return errors.New("too short")
		}
		return nil
	}
}

// Count accepts a positive whole number, written plainly, with underscores
// (1_000_000) or in exponent form (1e9).
func Count(v string) error {
	_, err := ParseCount(v)
	return err
}

// ParseCount reads a Count.
func ParseCount(v string) (uint64, error) {
	plain := strings.ReplaceAll(v, "_", "")
	if n, err := strconv.ParseUint(plain, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	f, err := strconv.ParseFloat(plain, 64)
	if err != nil || !(f >= 1) || f != math.Trunc(f) || f > 1<<62 || strings.ContainsAny(plain, "xXpP") {
		return 0, errors.New("not a positive whole number")
	}
	return uint64(f), nil
}

// Fraction accepts a number above 0 and at most 1, or a percentage above 0
// and at most 100 with a trailing %.
func Fraction(v string) error {
	num, scale := v, 1.0
	if strings.HasSuffix(v, "%") {
		num, scale = strings.TrimSpace(strings.TrimSuffix(v, "%")), 100
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || !(f > 0) || f/scale > 1 {
		return errors.New("not a fraction in (0, 1]")
	}
	return nil
}

// Percent accepts a percentage, with or without a trailing %, from lo to
// hi; the bounds are included where loIn and hiIn say.
func Percent(lo, hi float64, loIn, hiIn bool) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, "%")), 64)
		if err != nil || math.IsNaN(f) {
			return errors.New("not a number")
		}
		if f < lo || f > hi || (f == lo && !loIn) || (f == hi && !hiIn) {
			return errors.New("out of range")
		}
		return nil
	}
}

// Natural accepts a whole number of at least lo.
func Natural(lo int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo {
			return fmt.Errorf("not a whole number of at least %d", lo)
		}
		return nil
	}
}

// OneOf accepts one of the words given (case-insensitive).
func OneOf(words ...string) func(string) error {
	return func(v string) error {
		for _, w := range words {
			if strings.EqualFold(v, w) {
				return nil
			}
		}
		return errors.New("not one of the words accepted")
	}
}

// Bool accepts 1, on, true, yes and 0, off, false, no.
func Bool(v string) error {
	_, err := ParseBool(v)
	return err
}

// ParseBool reads a Bool.
func ParseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "on", "true", "yes":
		return true, nil
	case "0", "off", "false", "no":
		return false, nil
	}
	return false, errors.New("not 1 or 0")
}

// List applies item to every comma-separated item; an empty item or one
// named twice is refused.
func List(item func(string) error) func(string) error {
	return func(v string) error {
		seen := map[string]bool{}
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				return errors.New("an empty item")
			}
			if err := item(f); err != nil {
				return fmt.Errorf("%q: %w", f, err)
			}
			// An item written twice would count once: a slip to name.
			if seen[f] {
				return fmt.Errorf("%q is named twice; name each once", f)
			}
			seen[f] = true
		}
		return nil
	}
}

// Printable refuses control characters (a value printed into reports and
// terminals must not carry them).
func Printable(v string) error {
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return errors.New("holds a control character")
		}
	}
	return nil
}

// ReadableFile accepts the path of a regular file this process can read
// and that is not empty.
func ReadableFile(v string) error {
	st, err := os.Stat(v)
	if err != nil {
		return pathWhy(err)
	}
	if st.IsDir() {
		return errors.New("a directory, not a file")
	}
	if !st.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	f, err := os.Open(v)
	if err != nil {
		return pathWhy(err)
	}
	_ = f.Close()
	if st.Size() == 0 {
		return errors.New("an empty file")
	}
	return nil
}

// WritableDir accepts a directory this process can create files in, or a
// path that does not exist yet under one (it is created later): a report
// folder that cannot be written is found before any spec runs, not after.
func WritableDir(v string) error {
	p := filepath.Clean(v)
	for {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			parent := filepath.Dir(p)
			if parent == p {
				return pathWhy(err)
			}
			p = parent
			continue
		}
		if err != nil {
			return pathWhy(err)
		}
		if !st.IsDir() {
			if p == filepath.Clean(v) {
				return errors.New("a file, not a directory")
			}
			return fmt.Errorf("%s is a file, not a directory", p)
		}
		// Access(2) says yes to root everywhere; creating a file is the
		// test a read-only or special file system answers truthfully.
		f, err := os.CreateTemp(p, ".p2pconf-write-test-")
		if err != nil {
			return fmt.Errorf("%s is not writable", p)
		}
		name := f.Name()
		_ = f.Close()
		_ = os.Remove(name)
		return nil
	}
}

func pathWhy(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
