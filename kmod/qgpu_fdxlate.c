// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: fd arguments and the GPU-file check of a forwarded call: real files lent to RM, the
 * check answered, or real files installed in the caller's fd table for the call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "qgpu_internal.h"

/**
 * DOC: fd translation
 *
 * The NVIDIA driver resolves fd numbers in the *calling* process's fd table and requires them to
 * be its own files (major 195 or its f_op; reference sections 0.1 and 1.4); it also requires a
 * real /dev/nvidiaN of the GPU to be open in the caller to allocate a device or register a GPU
 * with UVM (nv_is_gpu_accessible walks current->files). A tenant holds only proxy files. For a
 * call that needs it, qgpu therefore:
 *
 * 1. takes the caller's fd-table lock (a mutex of that files_struct's own, made on first use
 *    and freed with its last user), so that two translated calls of one process never overlap
 *    and no other process waits on them;
 * 2. for an fd argument naming one of the caller's *own instance's* proxies of a kind the call
 *    takes (an RM call: control and GPU proxies; a UVM call: UVM proxies), where the driver's
 *    lookup is probed (nv_get_file_private() for RM, fget() for nvidia-uvm; DOC: lent files in
 *    qgpu_lend.c), *lends* the driver the real file behind that proxy: the caller's own number
 *    stays in the parameters, and the driver's lookup of that number in this task, for that
 *    kind of file, resolves to the real file (qgpu_lend_file()). The real file is never in the
 *    caller's fd table. Every fd argument of an RM escape is resolved in nv_get_file_private()
 *    (REGISTER_FD, RM_MAP_MEMORY, RM_ALLOC_MEMORY, the OS_UNIX export controls, the device fd of
 *    NV00FD_ATTACH_GPU and NV00E0_EXPORT_MEM; escape.c and os.c, 525-595), UVM_MM_INITIALIZE's
 *    and the tools tracker's uvmFd in fget() (uvm.c, uvm_tools.c);
 * 3. for the GPU-file check, where the caller holds one of the instance's nvidia0 proxies open
 *    (as the driver wants a GPU file open), has the probe on the driver's nv_is_gpu_accessible()
 *    answer it for the instance's GPU (DOC: GPU-file check in qgpu_gpucheck.c): no file at all;
 * 4. otherwise (no probe), installs a real file at a free fd (get_unused_fd_flags(O_CLOEXEC) +
 *    fd_install(get_file(real))): for an fd argument, the real file of the proxy the argument
 *    names, whose number replaces the caller's in the parameters; for the GPU-file check, a real
 *    file of the instance's GPU opened for the call;
 * 5. forwards the call, then takes installed fds out again (close_fd_get_file + filp_close),
 *    restores the caller's fd number in the parameters, checks no copy of an installed file was
 *    left in the table, takes lent files back, ends the answered check, and unlocks.
 *
 * Why this is safe against a hostile process (its other threads can rewrite the parameters
 * after qgpu looked at them, and the driver reads them again): whatever fd number the driver
 * ends up reading, the only backend files it can find in the caller's table are the ones step 2
 * installed, which are the caller's own instance's. An argument naming anything else that the
 * driver would accept (a real node the process got some other way, another instance's proxy)
 * is refused before forwarding.
 *
 * Residual risk, by construction of fd tables, where a file is installed (step 4): while the call
 * runs, another thread of the process can dup() the temporary fd and keep a real file of its own
 * instance, escaping qgpu's decoding (not the instance: it is still its own GPU, its own files).
 * Step 5 detects a copy left in the fd table, or a temporary fd replaced by dup2(), and kills the
 * process (SIGKILL), which closes every copy; only a copy sent over a unix socket within that
 * window escapes detection. With the probes, no call leaves that window. Without them, it is
 * there around every fd argument and around the GPU-file check (allocating a device,
 * UVM_REGISTER_GPU), whose file is opened for the call: it carries no registration and no
 * mapping context of the tenant's, but takes the escapes only a GPU node takes straight to the
 * driver; a real UVM VA-space file taken from UVM_MM_INITIALIZE's takes UVM calls past qgpu's
 * decoding (mappings qgpu keeps charged, managed memory). Measured: a thread that reads
 * /proc/self/fd throughout 100 rounds of REGISTER_FD, RM_MAP_MEMORY and an export saw real
 * nodes in 3 of 4 runs with files installed, and in none of 7 with them lent
 * (tests/guest/test_qgpu_forward.py).
 */

#define QGPU_XLATE_LOCK_BITS	6
#define QGPU_XLATE_LOCKS	BIT(QGPU_XLATE_LOCK_BITS)

/*
 * Translated calls are serialised per fd table, by a lock of that table's own: a call may wait
 * long in the driver (a tenant can stall RM's copy of its parameters on its own memory with
 * userfaultfd), and a lock shared by hash with other processes let one tenant's stalled call hold
 * up another tenant's calls, unkillably (seen in session 18's guest test of the stall).
 */
struct qgpu_xlate_lock {
	struct hlist_node node;
	const struct files_struct *files;
	struct mutex mutex;	/* serialises that fd table's translated calls */
	unsigned int users;	/* under qgpu_xlate_table_lock */
};

static DEFINE_SPINLOCK(qgpu_xlate_table_lock);
static DEFINE_HASHTABLE(qgpu_xlate_table, QGPU_XLATE_LOCK_BITS);

/* Where an entry cannot be allocated: hashed, so collisions only serialise more. */
static struct mutex qgpu_xlate_locks[QGPU_XLATE_LOCKS];

/**
 * qgpu_fdxlate_init() - set up the translation locks
 *
 * Context: module init, before any node exists.
 */
void qgpu_fdxlate_init(void)
{
	unsigned int i;

	for (i = 0; i < QGPU_XLATE_LOCKS; i++)
		mutex_init(&qgpu_xlate_locks[i]);
}

/* The entry of @files with a user more, or NULL. Context: qgpu_xlate_table_lock held. */
static struct qgpu_xlate_lock *qgpu_xlate_lock_get(const struct files_struct *files)
{
	struct qgpu_xlate_lock *l;

	hash_for_each_possible(qgpu_xlate_table, l, node, (unsigned long)files)
		if (l->files == files) {
			l->users++;
			return l;
		}
	return NULL;
}

/* The caller's fd table's own lock, made on first use; NULL where no memory is left. */
static struct qgpu_xlate_lock *qgpu_xlate_lock_take(void)
{
	const struct files_struct *files = current->files;
	struct qgpu_xlate_lock *l, *fresh;

	spin_lock(&qgpu_xlate_table_lock);
	l = qgpu_xlate_lock_get(files);
	spin_unlock(&qgpu_xlate_table_lock);
	if (l)
		return l;
	fresh = kmalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return NULL;
	spin_lock(&qgpu_xlate_table_lock);
	l = qgpu_xlate_lock_get(files);	/* another thread of ours made it meanwhile */
	if (!l) {
		fresh->files = files;
		mutex_init(&fresh->mutex);
		fresh->users = 1;
		hash_add(qgpu_xlate_table, &fresh->node, (unsigned long)files);
		l = fresh;
		fresh = NULL;
	}
	spin_unlock(&qgpu_xlate_table_lock);
	kfree(fresh);
	return l;
}

/* A user of @l is done; the last one frees it. */
static void qgpu_xlate_lock_put(struct qgpu_xlate_lock *l)
{
	bool last;

	spin_lock(&qgpu_xlate_table_lock);
	last = !--l->users;
	if (last)
		hash_del(&l->node);
	spin_unlock(&qgpu_xlate_table_lock);
	if (last) {
		mutex_destroy(&l->mutex);
		kfree(l);
	}
}

/**
 * qgpu_xlate_begin() - start a call that may install real files in the caller's fd table
 * @x: state for qgpu_xlate_fd(), qgpu_xlate_gpu_visible() and qgpu_xlate_end()
 * @rm: the call's fd arguments are RM's, which RM resolves through nv_get_file_private() and
 *	which are therefore lent where the probe is placed; false for nvidia-uvm's (UVM_MM_
 *	INITIALIZE, the tools tracker), which it looks up with fget() itself
 *
 * Context: process context; sleeps on the caller's fd-table lock.
 */
void qgpu_xlate_begin(struct qgpu_xlate *x, bool rm)
{
	x->n = 0;
	x->proxy = NULL;
	x->rm = rm;
	x->lending = rm ? qgpu_lend_rm_ready() : qgpu_lend_uvm_ready();
	qgpu_lend_begin(&x->lend);
	x->check.registered = false;
	x->own = qgpu_xlate_lock_take();
	x->lock = x->own ? &x->own->mutex :
		  &qgpu_xlate_locks[hash_ptr(current->files, QGPU_XLATE_LOCK_BITS)];
	mutex_lock(x->lock);
}

/* Install @real (a reference the caller hands over) at a free fd of the caller. */
static int qgpu_xlate_install(struct qgpu_xlate *x, struct file *real)
{
	int fd;

	if (WARN_ON(x->n == ARRAY_SIZE(x->fd))) {
		fput(real);
		return -EINVAL;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		fput(real);
		return fd;
	}
	x->fd[x->n] = fd;
	x->file[x->n] = real;
	x->n++;
	fd_install(fd, get_file(real));
	return fd;
}

/* A file the backend driver would accept as its own, other than through translation. */
static bool qgpu_is_backend_file(struct file *f)
{
	unsigned int i;

	if (S_ISCHR(file_inode(f)->i_mode) && imajor(file_inode(f)) == 195)
		return true;
	for (i = 0; i < QGPU_NODES; i++)
		if (qgpu_backend_fops[i] && f->f_op == qgpu_backend_fops[i])
			return true;
	return false;
}

/*
 * Only a proxy of a kind the call takes (RM: control and GPU nodes; nvidia-uvm: its own) gets
 * its real file given. Any other the driver finds as the proxy and refuses, as it refuses the
 * real file of that kind. Given, a real nvidiactl would sit in the tenant's fd table during a
 * UVM call, and a lent UVM file be read as RM's own.
 */
static bool qgpu_xlate_takes(const struct qgpu_xlate *x, const struct qgpu_file *proxy)
{
	return x->rm ? proxy->node != QGPU_NODE_UVM : proxy->node == QGPU_NODE_UVM;
}

static enum qgpu_lend_kind qgpu_xlate_lend_kind(const struct qgpu_file *proxy)
{
	switch (proxy->node) {
	case QGPU_NODE_CTL:
		return QGPU_LEND_CTL;
	case QGPU_NODE_GPU:
		return QGPU_LEND_GPU;
	default:
		return QGPU_LEND_UVM;
	}
}

/**
 * qgpu_xlate_fd() - translate an fd argument of a forwarded call
 * @x: from qgpu_xlate_begin()
 * @qf: the proxy the call was issued on
 * @fd: the fd number the caller passed
 * @real_fd: set to the number to forward: a temporary fd of the real file behind @fd if @fd is
 *	a proxy of @qf's instance and files are installed, else @fd unchanged (the real file is
 *	then lent to RM under @fd where @fd is such a proxy)
 *
 * The first proxy translated stays in @x->proxy (a reference, put by qgpu_xlate_end()), for a
 * caller that keeps state of its own on it (qgpu_export.c).
 *
 * Numbers that are not open, files the driver rejects anyway (anything that is neither a backend
 * file nor a qgpu proxy), and the instance's proxies of a kind the call does not take (a UVM
 * proxy in an RM call, a control or GPU proxy in a UVM call) are passed through untouched, so
 * that the driver answers them as it would answer the caller directly (some calls ignore the fd
 * field).
 *
 * Return: 0, -EINVAL if @fd names another instance's proxy or a real backend file, or the
 * error of installing the temporary fd.
 */
int qgpu_xlate_fd(struct qgpu_xlate *x, struct qgpu_file *qf, int fd, int *real_fd)
{
	enum qgpu_lend_kind kind;
	struct qgpu_file *other;
	struct file *f;
	int ret = 0;

	*real_fd = fd;
	if (fd < 0)
		return 0;
	f = fget(fd);
	if (!f)
		return 0;
	if (f->f_op == &qgpu_fops) {
		other = f->private_data;
		if (other->inst != qf->inst) {
			ret = -EINVAL;
			goto out_put;
		}
		if (!qgpu_xlate_takes(x, other))
			goto out_put;
		kind = qgpu_xlate_lend_kind(other);
		/* The driver resolves the tenant's own number to the real file: lent */
		if (x->lending && qgpu_lend_file(&x->lend, fd, get_file(other->real), kind)) {
			ret = 0;
		} else if (x->lending && kind != QGPU_LEND_UVM) {
			ret = -EINVAL;
		} else {
			/* no probe, or the one on fget() could not be armed (it says so) */
			ret = qgpu_xlate_install(x, get_file(other->real));
			if (ret >= 0) {
				*real_fd = ret;
				ret = 0;
			}
		}
		if (!ret && !x->proxy)
			x->proxy = get_file(f);
	} else if (qgpu_is_backend_file(f)) {
		ret = -EINVAL;
	}
out_put:
	fput(f);
	return ret;
}

struct qgpu_gpu_file_match {
	struct qgpu_instance *inst;
	bool found;
};

/* iterate_fd() callback, under the table's file_lock: an open nvidia0 proxy of the instance. */
static int qgpu_match_gpu_proxy(const void *data, struct file *f, unsigned int fd)
{
	struct qgpu_gpu_file_match *m = (struct qgpu_gpu_file_match *)data;
	struct qgpu_file *qf;

	if (f->f_op != &qgpu_fops)
		return 0;
	qf = f->private_data;
	if (qf->inst != m->inst || qf->node != QGPU_NODE_GPU)
		return 0;
	m->found = true;
	return 1;
}

/**
 * qgpu_xlate_gpu_visible() - let the driver's GPU-file check see the instance's GPU
 * @x: from qgpu_xlate_begin()
 * @qf: the proxy the call was issued on
 *
 * Where the caller holds an nvidia0 proxy of @qf's instance open, the check is answered for the
 * instance's GPU by the probe on nv_is_gpu_accessible() (DOC: GPU-file check), or, without it,
 * met by a real file of the instance's GPU installed for this call. Without such a proxy,
 * nothing is done and the driver refuses the call as it would refuse the caller directly
 * (NV_ERR_INSUFFICIENT_PERMISSIONS). Only the instance's own GPU is ever answered for, so the
 * check also keeps a tenant from allocating another GPU's device.
 *
 * An installed file is a fresh open, not the backend of the caller's proxy: another thread of
 * the caller can take whatever is in its fd table during the call (DOC: fd translation), and the
 * proxy's backend carries the tenant's registration and mapping contexts (a doorbell mmapped
 * through it would pass qgpu's gating). A fresh file carries none of them.
 *
 * Return: 0, or the error of opening the file or installing the temporary fd.
 */
int qgpu_xlate_gpu_visible(struct qgpu_xlate *x, struct qgpu_file *qf)
{
	struct qgpu_gpu_file_match m = { .inst = qf->inst };
	struct file *fresh;
	int ret;

	iterate_fd(current->files, 0, qgpu_match_gpu_proxy, &m);
	if (!m.found)
		return 0;
	if (qgpu_gpucheck_grant(&x->check, qf->inst->gpu->rm_gpu))
		return 0;
	fresh = qgpu_open_backend(QGPU_NODE_GPU, qf->inst->gpu, O_RDWR);
	if (IS_ERR(fresh))
		return PTR_ERR(fresh);
	ret = qgpu_xlate_install(x, fresh);
	return ret < 0 ? ret : 0;
}

/* iterate_fd() callback: a copy of one of the installed files. */
static int qgpu_match_installed(const void *data, struct file *f, unsigned int fd)
{
	const struct qgpu_xlate *x = data;
	unsigned int i;

	for (i = 0; i < x->n; i++)
		if (f == x->file[i])
			return 1;
	return 0;
}

/**
 * qgpu_xlate_end() - take the installed files out of the caller's fd table again
 * @x: from qgpu_xlate_begin()
 *
 * A temporary fd that no longer holds the file qgpu put there, or a copy of an installed file
 * left elsewhere in the table, means another thread of the caller grabbed it: the process is
 * killed (DOC: fd translation).
 *
 * Context: process context; releases the caller's fd-table lock.
 */
void qgpu_xlate_end(struct qgpu_xlate *x)
{
	bool leaked = false;
	struct file *f;
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		f = close_fd_get_file(x->fd[i]);
		if (f != x->file[i])
			leaked = true;
		if (!IS_ERR_OR_NULL(f))
			filp_close(f, current->files);
	}
	if (x->n && iterate_fd(current->files, 0, qgpu_match_installed, x))
		leaked = true;
	for (i = 0; i < x->n; i++)
		fput(x->file[i]);
	qgpu_lend_end(&x->lend);
	qgpu_gpucheck_end(&x->check);
	if (x->proxy)
		fput(x->proxy);
	mutex_unlock(x->lock);
	if (x->own)
		qgpu_xlate_lock_put(x->own);
	if (leaked) {
		pr_warn_ratelimited("process %d (%s) copied a backend file qgpu lent it for one call; killing it\n",
				    task_tgid_nr(current), current->comm);
		send_sig(SIGKILL, current, 1);
	}
}
