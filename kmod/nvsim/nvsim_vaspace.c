// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: which GPU VA space a channel is in (facts in kmod/nvrm/nvrm_abi.h,
 * NVRM_VASPACE_FLAGS_IS_EXTERNALLY_OWNED).
 *
 * A FERMI_VASPACE_A object is a resource of its own, so that its duplicates name the same VA
 * space, with the flags it was made with. As in RM (580.142):
 *   - a channel group is in the VA space its hVASpace names, or in its device's default one
 *     (kchangrpapiConstruct_IMPL(), vaspaceGetByHandleOrDeviceDefault_IMPL());
 *   - a subcontext (FERMI_CONTEXT_SHARE_A) is in the VA space its own hVASpace names, or in the
 *     device's default one, not its group's (kctxshareapiConstruct_IMPL()); in an externally
 *     owned VA space only once UVM has set the space's page directory (UVM_REGISTER_GPU_VASPACE),
 *     else NV_ERR_INVALID_STATE (kctxshareInitCommon_IMPL());
 *   - a channel is in its subcontext's VA space, or with none named in its group's (RM's legacy
 *     subcontexts; kchannelConstruct_IMPL()).
 * A device's default VA space is NULL here: nothing compares two of them, and none is externally
 * owned. UVM compares a channel's VA space with the one it registered (nvsim_uvm_channel.c), and
 * a graphics channel in an externally owned one is not scheduled until UVM binds it
 * (nvsim_fifo.c).
 *
 * Not simulated: device VA modes other than the default; RM's freeing of a VA space's groups and
 * subcontexts with it (refAddDependant()): here they keep it, and their VA space, until they go.
 * Legacy subcontexts in an externally owned VA space are made whether UVM has set its page
 * directory or not.
 *
 * Locking: nvsim_rm_lock for all of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "nvsim_internal.h"

/**
 * struct nvsim_ctxshare - a subcontext's resource (FERMI_CONTEXT_SHARE_A)
 * @res: the shared resource (its duplicates refer to it)
 * @vas: its VA space (a reference), NULL for its device's default
 */
struct nvsim_ctxshare {
	struct nvsim_res res;
	struct nvsim_vaspace *vas;
};

static void nvsim_vaspace_release(struct nvsim_res *res)
{
	kfree(container_of(res, struct nvsim_vaspace, res));
}

/* Another reference to @vas, which may be NULL (the device's default). */
struct nvsim_vaspace *nvsim_vaspace_get(struct nvsim_vaspace *vas)
{
	if (vas)
		kref_get(&vas->res.ref);
	return vas;
}

void nvsim_vaspace_put(struct nvsim_vaspace *vas)
{
	if (vas)
		nvsim_res_put(&vas->res);
}

/* The VA space @obj is, or NULL. */
struct nvsim_vaspace *nvsim_vaspace_of(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || obj->hclass != NVRM_CLASS_FERMI_VASPACE_A)
		return NULL;
	return container_of(obj->res, struct nvsim_vaspace, res);
}

/**
 * nvsim_vaspace_lookup() - the VA space an hVASpace parameter names, as
 *	vaspaceGetByHandleOrDeviceDefault() finds it
 * @client: the caller's client
 * @handle: the handle; 0 names the device's default VA space
 * @out: set to the VA space (a reference), or NULL for the device's default
 *
 * Return: NV_OK; NV_ERR_OBJECT_NOT_FOUND for no object of @client, NV_ERR_INVALID_OBJECT_HANDLE
 * for one that is not a VA space (serverutilGetResourceRefWithType()).
 */
u32 nvsim_vaspace_lookup(struct nvsim_client *client, u32 handle, struct nvsim_vaspace **out)
{
	struct nvsim_object *obj;

	*out = NULL;
	if (!handle)
		return NVRM_OK;
	obj = nvsim_object_lookup(client, handle);
	if (!obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (!nvsim_vaspace_of(obj))
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	*out = nvsim_vaspace_get(nvsim_vaspace_of(obj));
	return NVRM_OK;
}

/* A VA space, with the flags of its NV_VASPACE_ALLOCATION_PARAMETERS (@ap, or none). */
u32 nvsim_vaspace_construct(struct nvsim_object *obj, const void *ap)
{
	const struct nvrm_vaspace_alloc_params *p = ap;
	struct nvsim_vaspace *vas = kzalloc(sizeof(*vas), GFP_KERNEL);

	if (!vas)
		return NVRM_ERR_NO_MEMORY;
	nvsim_res_init(&vas->res, nvsim_vaspace_release);
	vas->flags = p ? p->flags : 0;
	obj->res = &vas->res;
	return NVRM_OK;
}

static struct nvsim_ctxshare *nvsim_obj_ctxshare(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || obj->hclass != NVRM_CLASS_FERMI_CONTEXT_SHARE_A)
		return NULL;
	return container_of(obj->res, struct nvsim_ctxshare, res);
}

/* The VA space of the subcontext @obj (a reference), NULL for its device's default. */
struct nvsim_vaspace *nvsim_ctxshare_vaspace(const struct nvsim_object *obj)
{
	const struct nvsim_ctxshare *cs = nvsim_obj_ctxshare(obj);

	return cs ? nvsim_vaspace_get(cs->vas) : NULL;
}

static void nvsim_ctxshare_release(struct nvsim_res *res)
{
	struct nvsim_ctxshare *cs = container_of(res, struct nvsim_ctxshare, res);

	nvsim_vaspace_put(cs->vas);
	kfree(cs);
}

/**
 * nvsim_ctxshare_construct() - a subcontext the client makes, in the VA space it names
 * @obj: the new object (its parent is a channel group)
 * @ap: NV_CTXSHARE_ALLOCATION_PARAMETERS, or NULL (hVASpace 0)
 *
 * Return: NV_OK; a lookup's status (nvsim_vaspace_lookup()); NV_ERR_INVALID_STATE for an
 * externally owned VA space whose page directory no UVM GPU VA space has set.
 */
u32 nvsim_ctxshare_construct(struct nvsim_object *obj, const void *ap)
{
	const struct nvrm_ctxshare_alloc_params *p = ap;
	struct nvsim_ctxshare *cs;
	struct nvsim_vaspace *vas;
	u32 status;

	status = nvsim_vaspace_lookup(obj->client, p ? p->hva_space : 0, &vas);
	if (status)
		return status;
	if (nvsim_vaspace_external(vas) && !vas->uvm_users) {
		status = NVRM_ERR_INVALID_STATE;
		goto err_put;
	}
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs) {
		status = NVRM_ERR_NO_MEMORY;
		goto err_put;
	}
	nvsim_res_init(&cs->res, nvsim_ctxshare_release);
	cs->vas = vas;
	obj->res = &cs->res;
	return NVRM_OK;

err_put:
	nvsim_vaspace_put(vas);
	return status;
}
