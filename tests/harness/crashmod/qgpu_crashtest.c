// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu_crashtest: a test-only module that makes the guest kernel misbehave on purpose, so the
 * harness tests can show that scripts/vm.sh fails a run on an oops or a WARN. Debian's kernel has
 * no LKDTM. Never built into anything that ships.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char *mode = "none";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "What to provoke at load: none, warn or oops");

static int __init qgpu_crashtest_init(void)
{
	int *nowhere = NULL;

	if (!strcmp(mode, "warn")) {
		WARN(1, "qgpu_crashtest: provoked WARN\n");
	} else if (!strcmp(mode, "oops")) {
		pr_emerg("provoking a NULL-pointer oops\n");
		/* Hidden from the optimiser: a real store to address 0, not UB folded away. */
		OPTIMIZER_HIDE_VAR(nowhere);
		WRITE_ONCE(*nowhere, 1);
	} else if (strcmp(mode, "none")) {
		return -EINVAL;
	}
	return 0;
}

static void __exit qgpu_crashtest_exit(void)
{
}

module_init(qgpu_crashtest_init);
module_exit(qgpu_crashtest_exit);

MODULE_DESCRIPTION("qgpu test harness: provoke a WARN or an oops");
MODULE_LICENSE("GPL");
