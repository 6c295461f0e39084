/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: what its kretprobes on non-sleeping lookups share (the GPU-file check, lent files).
 */
#ifndef QGPU_KRETPROBE_H
#define QGPU_KRETPROBE_H

#include <linux/cpumask.h>
#include <linux/minmax.h>

/* Where the probes can read the arguments and set the return value. */
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
#define QGPU_KRETPROBE_ARCH	true
#else
#define QGPU_KRETPROBE_ARCH	false
#endif

/*
 * Calls in flight at once that such a probe follows: they do not sleep, so no more than one a
 * CPU; room for two, and at least 64. A call it cannot follow gets the driver's own answer.
 */
static inline int qgpu_kretprobe_maxactive(void)
{
	return max_t(int, 64, 2 * num_possible_cpus());
}

#endif /* QGPU_KRETPROBE_H */
