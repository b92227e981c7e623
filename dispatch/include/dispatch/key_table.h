#pragma once
// The one table every key, count, offset and name derives from (PyTorch 1.13.1).
// See Note [Key Table] below; nothing else in the library lists keys by hand.

// Note [Key Table]
// Backends are listed lowest priority first; each owns one low bit of a key set and, for every
// per-backend functionality, one runtime key and one table slot. Functionalities are listed
// lowest priority first; PLAIN(name) owns one bit and one slot, PER_BACKEND(name, prefix) owns one
// bit and one slot per backend, its runtime keys being named prefix##Backend (the Dense block
// has an empty prefix: CPU, CUDA, ...). Adding a backend or functionality here is the whole change.

#define DISPATCH_FORALL_BACKEND_COMPONENTS(_, extra) \
  _(extra, CPU)                                       \
  _(extra, CUDA)                                      \
  _(extra, HIP)                                       \
  _(extra, XLA)                                       \
  _(extra, MPS)                                       \
  _(extra, IPU)                                       \
  _(extra, XPU)                                       \
  _(extra, HPU)                                       \
  _(extra, VE)                                        \
  _(extra, Lazy)                                      \
  _(extra, Meta)                                      \
  _(extra, PrivateUse1)                               \
  _(extra, PrivateUse2)                               \
  _(extra, PrivateUse3)

#define DISPATCH_FORALL_FUNCTIONALITY_KEYS(PLAIN, PER_BACKEND) \
  PER_BACKEND(Dense, )                                          \
  PLAIN(FPGA)                                                   \
  PLAIN(ORT)                                                    \
  PLAIN(Vulkan)                                                 \
  PLAIN(Metal)                                                  \
  PER_BACKEND(Quantized, Quantized)                             \
  PLAIN(CustomRNGKeyId)                                         \
  PLAIN(MkldnnCPU)                                              \
  PER_BACKEND(Sparse, Sparse)                                   \
  PLAIN(SparseCsrCPU)                                           \
  PLAIN(SparseCsrCUDA)                                          \
  PER_BACKEND(NestedTensor, NestedTensor)                       \
  PLAIN(BackendSelect)                                          \
  PLAIN(Python)                                                 \
  PLAIN(Fake)                                                   \
  PLAIN(FuncTorchDynamicLayerBackMode)                          \
  PLAIN(Functionalize)                                          \
  PLAIN(Named)                                                  \
  PLAIN(Conjugate)                                              \
  PLAIN(Negative)                                               \
  PLAIN(ZeroTensor)                                             \
  PLAIN(ADInplaceOrView)                                        \
  PLAIN(AutogradOther)                                          \
  PER_BACKEND(AutogradFunctionality, Autograd)                  \
  PLAIN(AutogradNestedTensor)                                   \
  PLAIN(Tracer)                                                 \
  PLAIN(AutocastCPU)                                            \
  PLAIN(AutocastXPU)                                            \
  PLAIN(AutocastCUDA)                                           \
  PLAIN(FuncTorchBatched)                                       \
  PLAIN(FuncTorchVmapMode)                                      \
  PLAIN(Batched)                                                \
  PLAIN(VmapMode)                                               \
  PLAIN(FuncTorchGradWrapper)                                   \
  PLAIN(DeferredInit)                                           \
  PLAIN(PythonTLSSnapshot)                                      \
  PLAIN(FuncTorchDynamicLayerFrontMode)                         \
  PLAIN(TESTING_ONLY_GenericWrapper)                            \
  PLAIN(TESTING_ONLY_GenericMode)                               \
  PLAIN(PythonDispatcher)

// Alias keys: no bit, no slot; they expand to runtime keys when a table is computed.
#define DISPATCH_FORALL_ALIAS_KEYS(_)          \
  _(Autograd)                                  \
  _(CompositeImplicitAutograd)                 \
  _(CompositeImplicitAutogradNestedTensor)     \
  _(CompositeExplicitAutograd)                 \
  _(CompositeExplicitAutogradNonFunctional)

// Extra enum names kept for backward compatibility: (alias, canonical key).
#define DISPATCH_FORALL_BC_ALIASES(_)                \
  _(CatchAll, Undefined)                             \
  _(CPUTensorId, CPU)                                \
  _(CUDATensorId, CUDA)                              \
  _(DefaultBackend, CompositeExplicitAutograd)       \
  _(PrivateUse1_PreAutograd, AutogradPrivateUse1)    \
  _(PrivateUse2_PreAutograd, AutogradPrivateUse2)    \
  _(PrivateUse3_PreAutograd, AutogradPrivateUse3)    \
  _(Autocast, AutocastCUDA)
