// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package litmussass

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/p2pconf/p2pconf/harness/cuda"
	"github.com/p2pconf/p2pconf/kernels"
)

// GPU compiles with the driver in one GPU's primary context, at the level
// JIT says.
type GPU struct {
	d   *cuda.Driver
	ctx *cuda.Context
	JIT kernels.JITOptions
}

// Compile JIT-compiles ptx (cuLink*) at g's level.
func (g *GPU) Compile(ptx, name string) (cubin []byte, info string, err error) {
	level := -1
	if g.JIT.Lowered {
		level = g.JIT.Level
	}
	err = g.ctx.Do(func() error {
		var e error
		cubin, info, e = g.d.CompilePTXLevel(ptx, name, level)
		return e
	})
	return cubin, info, err
}

// Close releases the context and the driver.
func (g *GPU) Close() error {
	err := g.ctx.Release()
	if cerr := g.d.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenGPU loads the driver, retains GPU ordinal's primary context and
// starts the report with the driver's and the device's names.
func OpenGPU(ordinal int, jit kernels.JITOptions) (*GPU, *Report, error) {
	d, err := cuda.Load(cuda.DefaultLibrary)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*GPU, *Report, error) {
		_ = d.Close()
		return nil, nil, err
	}
	if err := d.Init(); err != nil {
		return fail(err)
	}
	dev, err := d.Device(ordinal)
	if err != nil {
		return fail(fmt.Errorf("GPU %d: %w", ordinal, err))
	}
	name, _ := d.DeviceName(dev)
	ctx, err := d.RetainPrimaryContext(dev)
	if err != nil {
		return fail(err)
	}
	module := KernelModuleVersion()
	rep := &Report{CUDADriverVersion: d.Version(), Device: fmt.Sprintf("GPU %d %s", ordinal, name), DriverVersion: module,
		JIT: JITVersion(module, d.Version()), Level: LevelName(jit)}
	return &GPU{d: d, ctx: ctx, JIT: jit}, rep, nil
}

// KernelModuleVersion is the NVIDIA kernel module's version, the driver
// whose JIT compiled the code, from the header line of
// /proc/driver/nvidia/version ("unknown" where it cannot be read).
func KernelModuleVersion() string {
	data, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if f := regexp.MustCompile(`\b\d+\.\d+(\.\d+)?\b`).FindString(line); f != "" {
		return f
	}
	return strings.TrimSpace(line)
}
