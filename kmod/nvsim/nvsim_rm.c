// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: RM clients, objects, framebuffer allocation and controls.
 *
 * Each client is bound to the /dev/nvidiactl file that allocated it (the real RM's strict client
 * validation): using its handle through any other file fails with NV_ERR_INVALID_CLIENT, and the
 * client with everything under it is freed when that file is released. Objects form a tree under
 * their client; freeing one frees its subtree and returns any framebuffer it held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "nvsim_internal.h"

/* Handle bases of the real RM (resserv RS_CLIENT_HANDLE_BASE, RS_UNIQUE_HANDLE_BASE). */
#define NVSIM_CLIENT_HANDLE_BASE	0xc1d00000u
#define NVSIM_OBJECT_HANDLE_BASE	0xcaf00000u
#define NVSIM_HANDLE_RANGE		0x00100000u

/* Serialises every RM call, as the real RM's API lock does; see nvsim_internal.h. */
DEFINE_MUTEX(nvsim_rm_lock);
/* Protected by nvsim_rm_lock: client handle -> client. */
DEFINE_XARRAY(nvsim_clients);
static u32 nvsim_next_client;

/**
 * nvsim_client_get() - look a client up for a call; only what it is bound to may use it
 * @caller: the call
 * @hclient: the client handle it names
 * @out: the client, on success
 *
 * A kernel-privileged call may name any client: rmclientValidate() (client.c, 525-595) checks
 * the binding only for calls that carry the caller's OS info, and kernel calls carry none
 * (entry_points.c: a zeroed API_SECURITY_INFO at kernel privilege).
 *
 * Context: under nvsim_rm_lock.
 * Return: NV_OK or NV_ERR_INVALID_CLIENT.
 */
u32 nvsim_client_get(const struct nvsim_caller *caller, u32 hclient, struct nvsim_client **out)
{
	struct nvsim_client *client;

	lockdep_assert_held(&nvsim_rm_lock);
	client = xa_load(&nvsim_clients, hclient);
	if (!client || (!caller->kernel && client->owner != caller->owner))
		return NVRM_ERR_INVALID_CLIENT;
	*out = client;
	return NVRM_OK;
}

/* Any client, whatever it is bound to (kernel-privileged duplication). Under nvsim_rm_lock. */
struct nvsim_client *nvsim_client_lookup(u32 hclient)
{
	lockdep_assert_held(&nvsim_rm_lock);
	return xa_load(&nvsim_clients, hclient);
}

struct nvsim_object *nvsim_object_lookup(struct nvsim_client *client, u32 handle)
{
	lockdep_assert_held(&nvsim_rm_lock);
	return xa_load(&client->objects, handle);
}

/*
 * The driver's os_memcpy_from_user() (os-interface.c, 525-595): RM copies every parameter block
 * behind a pointer from user space through it (rmapiParamsAcquire() via portMemExCopyFromUser()).
 * Same name, arguments and result, and never inlined, so that a probe placed on the driver's
 * (qgpu's sealed forwarding) is placed on nvsim's the same way.
 */
noinline u32 os_memcpy_from_user(void *to, const void *from, u32 n)
{
	if (copy_from_user(to, u64_to_user_ptr((u64)(uintptr_t)from), n))
		return NVRM_ERR_INVALID_ADDRESS;
	return NVRM_OK;
}

/* Parameters embedded behind pointers are user memory, or kernel memory for kernel clients. */
int nvsim_copy_in(const struct nvsim_caller *caller, void *dst, u64 ptr, size_t n)
{
	if (!ptr)
		return -EFAULT;
	if (caller->kernel) {
		memcpy(dst, (const void *)(uintptr_t)ptr, n);
		return 0;
	}
	if (n > U32_MAX)
		return -EFAULT;
	return os_memcpy_from_user(dst, (const void *)(uintptr_t)ptr, n) ? -EFAULT : 0;
}

int nvsim_copy_out(const struct nvsim_caller *caller, u64 ptr, const void *src, size_t n)
{
	if (!ptr)
		return -EFAULT;
	if (caller->kernel) {
		memcpy((void *)(uintptr_t)ptr, src, n);
		return 0;
	}
	return copy_to_user(u64_to_user_ptr(ptr), src, n) ? -EFAULT : 0;
}

/* A kernel copy of @n bytes at @ptr, or NULL (bad pointer, no memory). */
void *nvsim_dup_in(const struct nvsim_caller *caller, u64 ptr, size_t n)
{
	void *buf = kmalloc(n, GFP_KERNEL);

	if (buf && nvsim_copy_in(caller, buf, ptr, n)) {
		kfree(buf);
		buf = NULL;
	}
	return buf;
}

/**
 * nvsim_res_init() - a new resource with one reference, freed by @release
 * @res: embedded in the class's own structure
 * @release: frees that structure; called under nvsim_rm_lock when the last handle goes
 */
void nvsim_res_init(struct nvsim_res *res, void (*release)(struct nvsim_res *res))
{
	kref_init(&res->ref);
	res->release = release;
}

static void nvsim_res_kref_release(struct kref *ref)
{
	struct nvsim_res *res = container_of(ref, struct nvsim_res, ref);

	res->release(res);
}

/* Drop one handle's reference. Context: under nvsim_rm_lock. */
void nvsim_res_put(struct nvsim_res *res)
{
	lockdep_assert_held(&nvsim_rm_lock);
	kref_put(&res->ref, nvsim_res_kref_release);
}

/*
 * What a user call through @file is. Like the real escape layer (secInfo.clientOSInfo =
 * nvfp->ctl_nvfp ?: nvfp), a call on a GPU file registered to a ctl file acts for that ctl file.
 */
struct nvsim_caller nvsim_user_caller(struct file *file)
{
	const struct nvsim_file *nf = file->private_data;

	return (struct nvsim_caller){ .owner = nf->ctl_file ?: file,
				      .tgid = task_tgid_nr(current) };
}

/* Generate a handle not in use in @xa, from @next within [base, base + NVSIM_HANDLE_RANGE). */
static u32 nvsim_gen_handle(struct xarray *xa, u32 base, u32 *next)
{
	u32 i, h;

	for (i = 0; i < NVSIM_HANDLE_RANGE; i++) {
		h = base + (*next)++ % NVSIM_HANDLE_RANGE;
		if (!xa_load(xa, h))
			return h;
	}
	return 0;
}

static void nvsim_object_free_subtree(struct nvsim_client *client, struct nvsim_object *obj)
{
	struct nvsim_object *child, *tmp;
	struct nvsim_mem *mem;

	lockdep_assert_held(&nvsim_rm_lock);
	list_for_each_entry_safe(child, tmp, &obj->children, sibling)
		nvsim_object_free_subtree(client, child);
	nvsim_mmap_object_freed(obj);
	nvsim_dmamap_object_freed(obj);
	mem = nvsim_obj_mem(obj);
	if (mem && mem->owner_obj == obj)
		mem->owner_obj = NULL;
	if (obj->res)
		nvsim_res_put(obj->res);
	kfree(obj->shares);
	obj->shares = NULL;
	xa_erase(&client->objects, obj->handle);
	if (obj->parent) {
		list_del(&obj->sibling);
		kfree(obj);
	}
}

static void nvsim_client_free(struct nvsim_client *client)
{
	lockdep_assert_held(&nvsim_rm_lock);
	nvsim_mmap_client_freed(client);
	nvsim_mem_client_gone(client);
	nvsim_object_free_subtree(client, &client->root);
	xa_erase(&nvsim_clients, client->root.handle);
	xa_destroy(&client->objects);
	put_pid(client->pid);
	kfree(client);
}

static u32 nvsim_client_alloc(const struct nvsim_caller *caller, struct nvrm_alloc *a)
{
	struct nvsim_client *client;
	u32 handle = a->hnew;
	int ret;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!handle)
		handle = nvsim_gen_handle(&nvsim_clients, NVSIM_CLIENT_HANDLE_BASE,
					  &nvsim_next_client);
	if (!handle)
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	client = kzalloc(sizeof(*client), GFP_KERNEL);
	if (!client)
		return NVRM_ERR_NO_MEMORY;
	client->root.handle = handle;
	client->root.hclass = NVRM_CLASS_NV01_ROOT_CLIENT;
	client->root.client = client;
	INIT_LIST_HEAD(&client->root.children);
	INIT_LIST_HEAD(&client->root.dma_maps);
	client->owner = caller->owner;
	client->kernel = caller->kernel;
	client->privileged = caller->kernel || capable(CAP_SYS_ADMIN);
	client->tgid = caller->tgid;
	if (!caller->kernel)
		client->pid = get_task_pid(current, PIDTYPE_TGID);
	xa_init(&client->objects);
	/*
	 * A handle another client has is refused and changes nothing (serverAllocClient()): the
	 * table entry is that client's, and only one this call inserted is taken out again.
	 */
	ret = xa_insert(&nvsim_clients, handle, client, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = xa_insert(&client->objects, handle, &client->root, GFP_KERNEL);
	if (ret) {
		xa_erase(&nvsim_clients, handle);
		goto err_free;
	}
	a->hnew = handle;
	return NVRM_OK;

err_free:
	put_pid(client->pid);
	kfree(client);
	return ret == -EBUSY ? NVRM_ERR_INSERT_DUPLICATE_NAME : NVRM_ERR_NO_MEMORY;
}

bool nvsim_is_channel_class(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_VOLTA_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_TURING_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A:
		return true;
	}
	return false;
}

/*
 * Which parent each class may be allocated under (the real RM's resource_list.h, simplified to the
 * classes nvsim knows). Returns NV_OK, NV_ERR_INVALID_CLASS for a class nvsim does not simulate, or
 * NV_ERR_INVALID_OBJECT_PARENT.
 */
u32 nvsim_check_parent(u32 hclass, const struct nvsim_object *parent)
{
	u32 p = parent->hclass;

	switch (hclass) {
	case NVRM_CLASS_NV01_EVENT_OS_EVENT:
		return NVRM_OK;	/* under the object whose notifications it receives */
	case NVRM_CLASS_NV01_MEMORY_VIRTUAL:	/* only as RM_ALLOC_MEMORY's dummy handle */
		return p == NVRM_CLASS_NV01_DEVICE_0 ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_NV01_DEVICE_0:
		return p == NVRM_CLASS_NV01_ROOT_CLIENT ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_NV20_SUBDEVICE_0:
	case NVRM_CLASS_FERMI_VASPACE_A:
	case NVRM_CLASS_KEPLER_CHANNEL_GROUP_A:
		return p == NVRM_CLASS_NV01_DEVICE_0 ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
		return p == NVRM_CLASS_NV01_DEVICE_0 || p == NVRM_CLASS_NV20_SUBDEVICE_0 ?
		       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_FERMI_CONTEXT_SHARE_A:
		return p == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A ?
		       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_HOPPER_USERMODE_A:
	case NVRM_CLASS_NV_MEMORY_FABRIC:
		return p == NVRM_CLASS_NV20_SUBDEVICE_0 ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	case NVRM_CLASS_HOPPER_COMPUTE_A:
	case NVRM_CLASS_HOPPER_DMA_COPY_A:
		return nvsim_is_channel_class(p) ? NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
	default:
		if (nvsim_is_channel_class(hclass))
			return p == NVRM_CLASS_NV01_DEVICE_0 ||
			       p == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A ?
			       NVRM_OK : NVRM_ERR_INVALID_OBJECT_PARENT;
		return NVRM_ERR_INVALID_CLASS;
	}
}

/*
 * Class-specific construction from the caller's alloc params (a kernel copy in @ap of @ap_size
 * bytes, or NULL when the class takes none). May change @ap (sizes RM writes back).
 */
static u32 nvsim_construct(const struct nvsim_caller *caller, struct nvsim_object *obj,
			   struct nvsim_object *parent, void *ap, u32 ap_size)
{
	obj->gpu = parent->gpu;
	switch (obj->hclass) {
	case NVRM_CLASS_NV01_DEVICE_0: {
		const struct nvrm_nv0080_alloc_params *dp = ap;

		if (!dp || dp->device_id >= nvsim_num_gpus)
			return NVRM_ERR_INVALID_ARGUMENT;
		obj->gpu = &nvsim_gpus[dp->device_id];
		/* Kernel clients have no files; the real check is for user callers only. */
		if (!caller->kernel && !nv_is_gpu_accessible(obj->gpu))
			return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
		return NVRM_OK;
	}
	case NVRM_CLASS_NV20_SUBDEVICE_0: {
		const struct nvrm_nv2080_alloc_params *sp = ap;

		return sp && sp->sub_device_id ? NVRM_ERR_INVALID_ARGUMENT : NVRM_OK;
	}
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
		return nvsim_mem_construct(obj, ap, ap_size, caller->kernel);
	case NVRM_CLASS_HOPPER_USERMODE_A:
		return nvsim_usermode_construct(obj);
	case NVRM_CLASS_NV_MEMORY_FABRIC:
		return nvsim_fabric_construct(obj, ap, ap_size);
	case NVRM_CLASS_NV01_EVENT_OS_EVENT:
		return nvsim_event_construct(caller, obj, ap);
	case NVRM_CLASS_KEPLER_CHANNEL_GROUP_A:
		return nvsim_tsg_construct(obj, ap);
	case NVRM_CLASS_FERMI_VASPACE_A:
		return nvsim_vaspace_construct(obj, ap);
	case NVRM_CLASS_FERMI_CONTEXT_SHARE_A:
		return nvsim_ctxshare_construct(obj, ap);
	case NVRM_CLASS_HOPPER_COMPUTE_A:
	case NVRM_CLASS_HOPPER_DMA_COPY_A:
		nvsim_engine_object_construct(parent);
		return NVRM_OK;
	default:
		if (nvsim_is_channel_class(obj->hclass))
			return nvsim_channel_construct(obj, parent, ap);
		return NVRM_OK;
	}
}

/**
 * nvsim_object_new() - a new, unlinked object of @client under @parent
 * @client: the client
 * @parent: its parent (an object of @client)
 * @hclass: its class
 * @handle: the handle asked for; 0 generates one. Updated with the handle used.
 * @out: the object, on success; nvsim_object_link() makes it visible, kfree() drops it
 *
 * Context: under nvsim_rm_lock.
 * Return: NV_OK, NV_ERR_INSUFFICIENT_RESOURCES (no handle left), NV_ERR_INSERT_DUPLICATE_NAME or
 * NV_ERR_NO_MEMORY.
 */
u32 nvsim_object_new(struct nvsim_client *client, struct nvsim_object *parent, u32 hclass,
		     u32 *handle, struct nvsim_object **out)
{
	struct nvsim_object *obj;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!*handle)
		*handle = nvsim_gen_handle(&client->objects, NVSIM_OBJECT_HANDLE_BASE,
					   &client->next_handle);
	if (!*handle)
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	if (xa_load(&client->objects, *handle))
		return NVRM_ERR_INSERT_DUPLICATE_NAME;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return NVRM_ERR_NO_MEMORY;
	obj->handle = *handle;
	obj->hclass = hclass;
	obj->client = client;
	obj->parent = parent;
	obj->gpu = parent->gpu;
	INIT_LIST_HEAD(&obj->children);
	INIT_LIST_HEAD(&obj->dma_maps);
	*out = obj;
	return NVRM_OK;
}

/* Make a constructed object visible. On failure the caller still owns it. Under nvsim_rm_lock. */
u32 nvsim_object_link(struct nvsim_object *obj)
{
	lockdep_assert_held(&nvsim_rm_lock);
	if (xa_insert(&obj->client->objects, obj->handle, obj, GFP_KERNEL))
		return NVRM_ERR_NO_MEMORY;
	list_add_tail(&obj->sibling, &obj->parent->children);
	return NVRM_OK;
}

/**
 * nvsim_rm_alloc_locked() - allocate an object from a kernel copy of its alloc params
 * @caller: the call
 * @a: decoded NVOS21/NVOS64; @a->hnew is updated with the new handle on success
 * @ap: the class's alloc params (kernel memory, @ap_size bytes), or NULL; may be changed (sizes
 *	RM writes back)
 * @ap_size: their size for this ABI version
 *
 * Used by RM_ALLOC and by the deprecated calls RM converts into an RM_ALLOC (VID_HEAP_CONTROL,
 * ALLOC_MEMORY), which build the params themselves.
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_rm_alloc_locked(const struct nvsim_caller *caller, struct nvrm_alloc *a, void *ap,
			  u32 ap_size)
{
	struct nvsim_client *client;
	struct nvsim_object *parent, *obj;
	u32 status;

	lockdep_assert_held(&nvsim_rm_lock);
	status = nvsim_client_get(caller, a->hroot, &client);
	if (status)
		return status;
	parent = xa_load(&client->objects, a->hparent);
	if (!parent)
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	status = nvsim_check_parent(a->hclass, parent);
	if (status)
		return status;
	status = nvsim_object_new(client, parent, a->hclass, &a->hnew, &obj);
	if (status)
		return status;
	status = nvsim_construct(caller, obj, parent, ap, ap_size);
	if (status)
		goto out_free_obj;
	status = nvsim_object_link(obj);
	if (status)
		goto out_put_res;
	return NVRM_OK;

out_put_res:
	if (obj->res)
		nvsim_res_put(obj->res);
out_free_obj:
	kfree(obj);
	return status;
}

/**
 * nvsim_rm_alloc_call() - allocate a client or an object
 * @caller: the call (user call through a ctl file, or a kernel client)
 * @a: decoded NVOS21/NVOS64; @a->hnew is updated with the new handle on success
 *
 * The class's parameters are copied in before nvsim_rm_lock is taken and back after it is let
 * go, as RM copies them outside its locks (serverAllocApiCopyIn() before serverTopLock_Prologue(),
 * rs_server.c, 525-595): a caller whose memory stalls the copy (userfaultfd) stalls its own call,
 * not every other.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_rm_alloc_call(const struct nvsim_caller *caller, struct nvrm_alloc *a)
{
	u32 ap_size = 0, status;
	void *ap = NULL;

	switch (a->hclass) {
	case NVRM_CLASS_NV01_ROOT:
	case NVRM_CLASS_NV01_ROOT_NON_PRIV:
	case NVRM_CLASS_NV01_ROOT_CLIENT:
		mutex_lock(&nvsim_rm_lock);
		status = nvsim_client_alloc(caller, a);
		mutex_unlock(&nvsim_rm_lock);
		return status;
	}
	/* RM copies the class's params at its own size for this version, never the caller's. */
	ap_size = nvrm_abi_alloc_params_size(&nvsim_abi, a->hclass);
	if (ap_size && a->params_ptr) {
		ap = nvsim_dup_in(caller, a->params_ptr, ap_size);
		if (!ap)
			return NVRM_ERR_INVALID_ADDRESS;
	}
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_rm_alloc_locked(caller, a, ap, ap_size);
	mutex_unlock(&nvsim_rm_lock);
	if (!status && ap && nvsim_copy_out(caller, a->params_ptr, ap, ap_size))
		pr_debug("alloc params copy-back failed\n");	/* as RM: the object stays */
	kfree(ap);
	return status;
}

/**
 * nvsim_rm_alloc() - NV_ESC_RM_ALLOC (NVOS21 or NVOS64, told apart by size)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of the NVOS21/NVOS64 parameters; status and hObjectNew are written back
 * @size: their size
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_alloc(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_alloc a;
	u32 status;

	if (nvrm_alloc_decode(&nvsim_abi, params, size, &a))
		return -EINVAL;
	/* NV_CTL_DEVICE_ONLY, except for the event classes (escape.c) */
	if (!nf->is_ctl && a.hclass != NVRM_CLASS_NV01_EVENT &&
	    a.hclass != NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK &&
	    a.hclass != NVRM_CLASS_NV01_EVENT_OS_EVENT &&
	    a.hclass != NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK_EX)
		return -EINVAL;
	status = nvsim_rm_alloc_call(&caller, &a);
	if (status == NVRM_OK)
		nvrm_alloc_set_hnew(&nvsim_abi, params, size, a.hnew);
	nvrm_alloc_set_status(&nvsim_abi, params, size, status);
	return 0;
}

/**
 * nvsim_rm_free_call() - free an object and its subtree, or a whole client
 * @caller: the call
 * @hclient: the client
 * @hobject: the object; the client handle frees the client
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_rm_free_call(const struct nvsim_caller *caller, u32 hclient, u32 hobject)
{
	u32 status;

	mutex_lock(&nvsim_rm_lock);
	status = nvsim_rm_free_locked(caller, hclient, hobject);
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/* nvsim_rm_free_call() for callers that hold nvsim_rm_lock already. */
u32 nvsim_rm_free_locked(const struct nvsim_caller *caller, u32 hclient, u32 hobject)
{
	struct nvsim_client *client;
	struct nvsim_object *obj;
	u32 status;

	lockdep_assert_held(&nvsim_rm_lock);
	status = nvsim_client_get(caller, hclient, &client);
	if (status)
		return status;
	if (hobject == hclient) {
		nvsim_client_free(client);
		return NVRM_OK;
	}
	/*
	 * A handle the client does not have is NV_OK, and nothing changes: resserv's compatibility
	 * mode (serverFreeResourceTreeLockAndFindResource(), 525-595), as an H200 with GSP
	 * 580.159.04 answered a second free of a channel (session 37).
	 */
	obj = xa_load(&client->objects, hobject);
	if (!obj)
		return NVRM_OK;
	nvsim_object_free_subtree(client, obj);
	return NVRM_OK;
}

/**
 * nvsim_rm_free() - NV_ESC_RM_FREE (NVOS00)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS00; status is written back
 * @size: must be sizeof(NVOS00)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_free(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos00 *p = params;

	if (!nf->is_ctl || size != sizeof(*p))
		return -EINVAL;
	p->status = nvsim_rm_free_call(&caller, p->hroot, p->hobject_old);
	/* Freeing a client through the escape also frees its OS events (escape.c). */
	if (p->status == NVRM_OK && p->hobject_old == p->hroot)
		nvsim_event_client_gone(p->hroot);
	return 0;
}

/* One FB info index, in KiB, as kern_mem_sys_ctrl.c reports it for a GPU with nothing reserved. */
static u32 nvsim_fb_info(const struct nvsim_gpu *gpu, struct nvrm_fb_info *info)
{
	u64 total_kb = gpu->fb_size >> 10;
	u64 free_kb = (gpu->fb_size - gpu->fb_used) >> 10;

	switch (info->index) {
	case NVRM_FB_INFO_INDEX_BAR1_SIZE:
	case NVRM_FB_INFO_INDEX_BAR1_AVAIL_SIZE:
	case NVRM_FB_INFO_INDEX_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE:
	case NVRM_FB_INFO_INDEX_HEAP_SIZE:
	case NVRM_FB_INFO_INDEX_MAPPABLE_HEAP_SIZE:
	case NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE:
		info->data = total_kb;
		return NVRM_OK;
	case NVRM_FB_INFO_INDEX_HEAP_FREE:
	case NVRM_FB_INFO_INDEX_LARGEST_FREE_REGION_SIZE_KB:
		info->data = free_kb;
		return NVRM_OK;
	case NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB:
	case NVRM_FB_INFO_INDEX_HEAP_BASE_KB:
	case NVRM_FB_INFO_INDEX_HEAP_START:
	case NVRM_FB_INFO_INDEX_HEAP_OFFLINE_SIZE:
	case NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_TOTAL_KB:
	case NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_FREE_KB:
	case NVRM_FB_INFO_INDEX_IS_ZERO_FB:
		info->data = 0;
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

/* One FB info index's value in KiB (0 for an index nvsim does not know). Under nvsim_rm_lock. */
void nvsim_fb_info_kb(const struct nvsim_gpu *gpu, u32 index, u32 *data)
{
	struct nvrm_fb_info info = { .index = index };

	*data = nvsim_fb_info(gpu, &info) ? 0 : info.data;
}

static u32 nvsim_ctrl_fb_get_info_v2(const struct nvsim_caller *caller, struct nvsim_object *obj,
				     void *buf)
{
	struct nvrm_fb_get_info_v2 *p = buf;
	u32 i, status;

	if (p->fb_info_list_size > nvsim_abi.fb_info_max_list_size)
		return NVRM_ERR_INVALID_ARGUMENT;
	for (i = 0; i < p->fb_info_list_size; i++) {
		status = nvsim_fb_info(obj->gpu, &p->fb_info_list[i]);
		if (status)
			return status;
	}
	return NVRM_OK;
}

/* The deprecated v1 control: the list sits behind a user pointer (converted to V2 by RM). */
static u32 nvsim_ctrl_fb_get_info(const struct nvsim_caller *caller, struct nvsim_object *obj,
				  void *buf)
{
	struct nvrm_fb_get_info *p = buf;
	struct nvrm_fb_info *list;
	u32 i, status = NVRM_OK;
	size_t bytes;

	if (!p->fb_info_list_size || p->fb_info_list_size > nvsim_abi.fb_info_max_list_size)
		return NVRM_ERR_INVALID_ARGUMENT;
	bytes = p->fb_info_list_size * sizeof(*list);
	list = nvsim_dup_in(caller, p->fb_info_list, bytes);
	if (!list)
		return NVRM_ERR_INVALID_ADDRESS;
	for (i = 0; i < p->fb_info_list_size && !status; i++)
		status = nvsim_fb_info(obj->gpu, &list[i]);
	if (!status && nvsim_copy_out(caller, p->fb_info_list, list, bytes))
		status = NVRM_ERR_INVALID_ADDRESS;
	kfree(list);
	return status;
}

static u32 nvsim_ctrl_gpu_get_name_string(const struct nvsim_caller *caller,
					  struct nvsim_object *obj, void *buf)
{
	struct nvrm_gpu_get_name_string *p = buf;
	unsigned int i;

	if (p->flags == NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII) {
		strscpy((char *)p->name.ascii, nvsim_gpu_name, sizeof(p->name.ascii));
		return NVRM_OK;
	}
	if (p->flags == NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE &&
	    nvsim_abi.gpu_name_string_size == NVRM_GPU_GET_NAME_STRING_SIZE_V525) {
		memset(p->name.unicode, 0, sizeof(p->name.unicode));
		for (i = 0; i < NVSIM_NAME_LEN - 1 && nvsim_gpu_name[i]; i++)
			p->name.unicode[i] = (u8)nvsim_gpu_name[i];
		return NVRM_OK;
	}
	return NVRM_ERR_INVALID_ARGUMENT;
}

static u32 nvsim_ctrl_gpu_get_gid_info(const struct nvsim_caller *caller,
				       struct nvsim_object *obj, void *buf)
{
	struct nvrm_gpu_get_gid_info *p = buf;
	const char *hex = obj->gpu->uuid + 4;	/* past "GPU-" */
	unsigned int i, n = 0;

	memset(p->data, 0, sizeof(p->data));
	switch (p->flags & 0x3) {
	case NVRM_GPU_GET_GID_FLAGS_FORMAT_ASCII:
		p->length = strscpy((char *)p->data, obj->gpu->uuid, sizeof(p->data)) + 1;
		return NVRM_OK;
	case NVRM_GPU_GET_GID_FLAGS_FORMAT_BINARY:
		for (i = 0; hex[i] && n < NVRM_GPU_MAX_SHA1_BINARY_GID_LENGTH; i++) {
			if (hex[i] == '-')
				continue;
			if (hex2bin(&p->data[n++], &hex[i], 1))
				return NVRM_ERR_INVALID_STATE;
			i++;
		}
		p->length = NVRM_GPU_MAX_SHA1_BINARY_GID_LENGTH;
		return NVRM_OK;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

/* NV0000 (client) GPU_GET_ID_INFO_V2: which device instance a CARD_INFO gpuId is allocated as. */
static u32 nvsim_ctrl_gpu_get_id_info_v2(const struct nvsim_caller *caller,
					 struct nvsim_object *obj, void *buf)
{
	struct nvrm_nv0000_gpu_get_id_info_v2 *p = buf;
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++) {
		if (nvsim_gpus[i].gpu_id != p->gpu_id)
			continue;
		p->gpu_flags = 0;
		p->device_instance = i;
		p->sub_device_instance = 0;
		p->sli_status = 0;
		p->board_id = p->gpu_id;
		p->gpu_instance = i;
		p->numa_id = -1;
		return NVRM_OK;
	}
	return NVRM_ERR_INVALID_ARGUMENT;
}

/*
 * NV0000 GPU_GET_ATTACHED_IDS and GPU_GET_PROBED_IDS: every GPU, in probe order, then INVALID_ID
 * (nvsim attaches each GPU at load and excludes none). Both lists start at offset 0.
 */
static void nvsim_gpu_id_list(u32 *ids, unsigned int slots)
{
	unsigned int i;

	for (i = 0; i < slots; i++)
		ids[i] = i < nvsim_num_gpus ? nvsim_gpus[i].gpu_id : NVRM_NV0000_GPU_INVALID_ID;
}

static u32 nvsim_ctrl_gpu_get_attached_ids(const struct nvsim_caller *caller,
					   struct nvsim_object *obj, void *buf)
{
	struct nvrm_nv0000_gpu_get_attached_ids *p = buf;

	nvsim_gpu_id_list(p->gpu_ids, ARRAY_SIZE(p->gpu_ids));
	return NVRM_OK;
}

static u32 nvsim_ctrl_gpu_get_probed_ids(const struct nvsim_caller *caller,
					 struct nvsim_object *obj, void *buf)
{
	struct nvrm_nv0000_gpu_get_probed_ids *p = buf;
	unsigned int i;

	nvsim_gpu_id_list(p->gpu_ids, ARRAY_SIZE(p->gpu_ids));
	memset(p->excluded_gpu_ids, 0xff, sizeof(p->excluded_gpu_ids));
	/* 580+: no SOC display on any GPU listed; the caller's words stay in the rest */
	if (nvsim_abi.major >= NVRM_NV0000_GPU_PROBED_IDS_FLAGS_SINCE)
		for (i = 0; i < nvsim_num_gpus && i < ARRAY_SIZE(p->gpu_flags); i++)
			p->gpu_flags[i] = 0;
	return NVRM_OK;
}

/* A size of 0 in the table means it depends on the ABI version. */
static const struct nvsim_control nvsim_core_controls[] = {
	{ NVRM_CTRL_CMD_FB_GET_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_fb_get_info), nvsim_ctrl_fb_get_info },
	{ NVRM_CTRL_CMD_FB_GET_INFO_V2, NVRM_CLASS_NV20_SUBDEVICE_0,
	  0, nvsim_ctrl_fb_get_info_v2 },
	{ NVRM_CTRL_CMD_GPU_GET_NAME_STRING, NVRM_CLASS_NV20_SUBDEVICE_0,
	  0, nvsim_ctrl_gpu_get_name_string },
	{ NVRM_CTRL_CMD_GPU_GET_GID_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gpu_get_gid_info), nvsim_ctrl_gpu_get_gid_info },
	{ NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_nv0000_gpu_get_id_info_v2), nvsim_ctrl_gpu_get_id_info_v2 },
	{ NVRM_CTRL_CMD_NV0000_GPU_GET_ATTACHED_IDS, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_nv0000_gpu_get_attached_ids), nvsim_ctrl_gpu_get_attached_ids },
	{ NVRM_CTRL_CMD_NV0000_GPU_GET_PROBED_IDS, NVRM_CLASS_NV01_ROOT_CLIENT,
	  0, nvsim_ctrl_gpu_get_probed_ids },
};

static const unsigned int nvsim_core_num_controls = ARRAY_SIZE(nvsim_core_controls);

/* Every table of controls; a file that implements controls adds its table here. */
static const struct {
	const struct nvsim_control *ctrls;
	const unsigned int *count;
} nvsim_control_tables[] = {
	{ nvsim_core_controls, &nvsim_core_num_controls },
	{ nvsim_memctrl_controls, &nvsim_memctrl_num_controls },
	{ nvsim_pids_controls, &nvsim_pids_num_controls },
	{ nvsim_fifo_controls, &nvsim_fifo_num_controls },
	{ nvsim_export_controls, &nvsim_export_num_controls },
	{ nvsim_gpuinfo_controls, &nvsim_gpuinfo_num_controls },
	{ nvsim_falcon_controls, &nvsim_falcon_num_controls },
};

static const struct nvsim_control *nvsim_control_lookup(u32 cmd)
{
	unsigned int t, i;

	for (t = 0; t < ARRAY_SIZE(nvsim_control_tables); t++)
		for (i = 0; i < *nvsim_control_tables[t].count; i++)
			if (nvsim_control_tables[t].ctrls[i].cmd == cmd)
				return &nvsim_control_tables[t].ctrls[i];
	return NULL;
}

/* Controls of one channel class are accepted by every channel class (class inheritance). */
static bool nvsim_control_class_ok(const struct nvsim_control *ctrl, u32 hclass)
{
	if (ctrl->hclass == NVSIM_CTRL_CLASS_MEMORY)
		return hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER ||
		       hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM;
	return ctrl->hclass == hclass ||
	       (nvsim_is_channel_class(ctrl->hclass) && nvsim_is_channel_class(hclass));
}

static u32 nvsim_control_size(const struct nvsim_control *ctrl)
{
	switch (ctrl->cmd) {
	case NVRM_CTRL_CMD_FB_GET_INFO_V2:
		return nvsim_abi.fb_get_info_v2_size;
	case NVRM_CTRL_CMD_GPU_GET_NAME_STRING:
		return nvsim_abi.gpu_name_string_size;
	case NVRM_CTRL_CMD_GPU_GET_INFO_V2:
	case NVRM_CTRL_CMD_GPU_GET_CACHED_INFO:
		return nvrm_gpu_get_info_v2_size(&nvsim_abi);
	case NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE:
	case NVRM_CTRL_CMD_NVA06F_GPFIFO_SCHEDULE:
		return nvsim_abi.gpfifo_schedule_size;
	case NVRM_CTRL_CMD_NV0000_GPU_GET_PROBED_IDS:
		return nvrm_nv0000_probed_ids_size(nvsim_abi.major);
	default:
		return ctrl->size;
	}
}

/**
 * nvsim_rm_control_call() - one control
 * @caller: the call
 * @c: decoded NVOS54
 *
 * paramsSize must equal the control's size for this ABI version (NV_ERR_INVALID_PARAM_STRUCT
 * otherwise, as resControlLookup does). The control's params are copied back only on success.
 * A known control's params of the right size are copied in before nvsim_rm_lock is taken and back
 * after it is let go, as RM copies them outside its locks (serverControlApiCopyIn() before
 * serverTopLock_Prologue(), rs_server.c, 525-595); the statuses come in the order they did.
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_rm_control_call(const struct nvsim_caller *caller, const struct nvrm_control *c)
{
	const struct nvsim_control *ctrl;
	struct nvsim_client *client;
	struct nvsim_object *obj;
	void *buf = NULL;
	u32 status;

	ctrl = nvsim_control_lookup(c->cmd);
	if (ctrl && !c->finn_serialized && c->params_ptr &&
	    c->params_size == nvsim_control_size(ctrl))
		buf = nvsim_dup_in(caller, c->params_ptr, c->params_size);
	mutex_lock(&nvsim_rm_lock);
	status = nvsim_client_get(caller, c->hclient, &client);
	if (status)
		goto out_unlock;
	obj = xa_load(&client->objects, c->hobject);
	if (!obj) {
		status = NVRM_ERR_INVALID_OBJECT_HANDLE;
		goto out_unlock;
	}
	if (!ctrl || !nvsim_control_class_ok(ctrl, obj->hclass) || c->finn_serialized) {
		status = NVRM_ERR_NOT_SUPPORTED;
		goto out_unlock;
	}
	if (c->params_size != nvsim_control_size(ctrl) || !c->params_ptr) {
		status = NVRM_ERR_INVALID_PARAM_STRUCT;
		goto out_unlock;
	}
	if (!buf) {
		status = NVRM_ERR_INVALID_ADDRESS;
		goto out_unlock;
	}
	status = ctrl->handler(caller, obj, buf);
out_unlock:
	mutex_unlock(&nvsim_rm_lock);
	if (!status && nvsim_copy_out(caller, c->params_ptr, buf, c->params_size))
		status = NVRM_ERR_INVALID_ADDRESS;
	kfree(buf);
	return status;
}

/**
 * nvsim_rm_control() - NV_ESC_RM_CONTROL (NVOS54)
 * @file: must be /dev/nvidiactl
 * @params: kernel copy of NVOS54; status is written back
 * @size: must be sizeof(NVOS54)
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in @params, or -EINVAL for a wrong size or device.
 */
int nvsim_rm_control(struct file *file, void *params, u32 size)
{
	const struct nvsim_file *nf = file->private_data;
	struct nvsim_caller caller = nvsim_user_caller(file);
	struct nvrm_nvos54 *p = params;
	struct nvrm_control c;

	if (!nf->is_ctl || nvrm_control_decode(params, size, &c))
		return -EINVAL;
	p->status = nvsim_rm_control_call(&caller, &c);
	return 0;
}

/**
 * nvsim_rm_release_owner() - a ctl file or kernel session is going away: free its clients
 * @owner: the file or session
 *
 * Context: process context (release); takes nvsim_rm_lock.
 */
void nvsim_rm_release_owner(const void *owner)
{
	struct nvsim_client *client;
	unsigned long handle;

	mutex_lock(&nvsim_rm_lock);
	xa_for_each(&nvsim_clients, handle, client)
		if (client->owner == owner)
			nvsim_client_free(client);
	mutex_unlock(&nvsim_rm_lock);
}

/* Module unload: every file is closed by then, so nothing is left; check that it is so. */
void nvsim_rm_exit(void)
{
	WARN_ON(!xa_empty(&nvsim_clients));
	xa_destroy(&nvsim_clients);
}
