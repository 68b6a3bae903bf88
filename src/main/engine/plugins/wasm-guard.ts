/**
 * WebAssembly for plugins that declare `wasm: true`, bounded.
 *
 * A `WebAssembly.Memory` lives outside the V8 heap, so an isolate's memory limit does not see
 * it: a 64 MB plugin could grow the host by gigabytes. Plugins that do not declare `wasm` get no
 * `WebAssembly` at all. Those that do get this replacement namespace instead, evaluated in the
 * isolate before any plugin code runs (an expression of plain JavaScript, kept as text because
 * it runs in the isolate, not in Node):
 *
 * - every memory must declare a maximum, and the sum of the maximums of every memory the
 *   isolate ever creates — by `new WebAssembly.Memory` or defined inside an instantiated
 *   module — stays within the budget (`pages`, 64 KiB each), reserved before it is allocated;
 * - the sum of the sizes of every module compiled stays within `codeBytes` (compiled code is
 *   off the heap too);
 * - modules are compiled and instantiated synchronously from a private copy of the bytes, with
 *   intrinsics captured now, so nothing the plugin patches later (prototypes, `then`) can make
 *   the accounting see one module and instantiate another;
 * - the real constructors are never reachable: the prototypes' `constructor` points at the
 *   wrappers; JS promise integration (`Suspending`, `promising`) is left out.
 *
 * When a budget runs out the call fails with a RangeError and `onSpent()` asks the host to
 * restart the isolate after the call, which frees everything and starts the budget afresh.
 */
export const WASM_GUARD = `(function installWasmGuard(Real, pages, codeBytes, onSpent) {
  "use strict";
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const describe = Object.getOwnPropertyDescriptor;
  const PromiseCtor = Promise;
  const promiseResolve = Promise.resolve;
  const promiseReject = Promise.reject;
  const WeakMapCtor = WeakMap;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const wmHas = WeakMap.prototype.has;
  const U8 = Uint8Array;
  const TypedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const taSet = TypedArrayProto.set;
  const taBuffer = describe(TypedArrayProto, "buffer").get;
  const taOffset = describe(TypedArrayProto, "byteOffset").get;
  const taLength = describe(TypedArrayProto, "byteLength").get;
  const dvBuffer = describe(DataView.prototype, "buffer").get;
  const dvOffset = describe(DataView.prototype, "byteOffset").get;
  const dvLength = describe(DataView.prototype, "byteLength").get;
  const abLength = describe(ArrayBuffer.prototype, "byteLength").get;
  const sabLength = typeof SharedArrayBuffer === "function" ? describe(SharedArrayBuffer.prototype, "byteLength").get : undefined;
  const isView = ArrayBuffer.isView;
  const NumberCtor = Number;
  const isInteger = Number.isInteger;
  const RangeErrorCtor = RangeError;
  const TypeErrorCtor = TypeError;
  const RealModule = Real.Module;
  const RealInstance = Real.Instance;
  const RealMemory = Real.Memory;
  const realValidate = Real.validate;
  const PAGE = 65536;
  const MAX_PAGES = 65536;
  const budgetMb = (pages * PAGE) / (1024 * 1024);

  let pagesLeft = pages;
  let codeLeft = codeBytes;
  const modulePages = new WeakMapCtor();

  function spent(what) {
    onSpent();
    return new RangeErrorCtor(
      "WebAssembly " + what + ": this plugin may use at most " + budgetMb + " MB of WebAssembly memory " +
      "(the sum of every memory's maximum) and " + budgetMb + " MB of WebAssembly modules in one isolate. " +
      "The isolate restarts after this call; declare smaller maximums (e.g. (memory 1 16) is 1 MB)."
    );
  }

  function reserve(count) {
    if (count > pagesLeft) throw spent("memory budget exceeded (" + count + " pages asked, " + pagesLeft + " left)");
    pagesLeft -= count;
  }

  function bytesOf(source) {
    let buffer, offset, length;
    if (isView(source)) {
      try {
        buffer = apply(taBuffer, source, []);
        offset = apply(taOffset, source, []);
        length = apply(taLength, source, []);
      } catch {
        buffer = apply(dvBuffer, source, []);
        offset = apply(dvOffset, source, []);
        length = apply(dvLength, source, []);
      }
    } else {
      buffer = source;
      offset = 0;
      try {
        length = apply(abLength, source, []);
      } catch {
        if (!sabLength) throw new TypeErrorCtor("WebAssembly needs an ArrayBuffer or a typed array of the module's bytes");
        try {
          length = apply(sabLength, source, []);
        } catch {
          throw new TypeErrorCtor("WebAssembly needs an ArrayBuffer or a typed array of the module's bytes");
        }
      }
    }
    const copy = new U8(length);
    apply(taSet, copy, [construct(U8, [buffer, offset, length])]);
    return copy;
  }

  function readU32(bytes, at) {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      const b = bytes[at.i++];
      if (b === undefined) throw new TypeErrorCtor("truncated module");
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return result;
      scale *= 128;
    }
    throw new TypeErrorCtor("bad LEB128 number");
  }

  /** The pages the memories a module defines (not imports) may grow to, in total. */
  function definedPages(bytes) {
    const at = { i: 8 };
    let total = 0;
    while (at.i < bytes.length) {
      const id = bytes[at.i++];
      const size = readU32(bytes, at);
      const end = at.i + size;
      if (id === 5) {
        const count = readU32(bytes, at);
        for (let m = 0; m < count; m++) {
          const flags = bytes[at.i++];
          if (flags !== 0x01 && flags !== 0x03) {
            throw new RangeErrorCtor(
              flags === 0x00 || flags === 0x02
                ? "WebAssembly modules must declare a maximum size for every memory they define, e.g. (memory 1 16)"
                : "WebAssembly memories other than 32-bit ones with a maximum are not allowed (flags " + flags + ")"
            );
          }
          readU32(bytes, at);
          total += readU32(bytes, at);
        }
      }
      at.i = end;
    }
    return total;
  }

  function compileSync(source) {
    const bytes = bytesOf(source);
    if (bytes.length > codeLeft) throw spent("module budget exceeded (" + bytes.length + " bytes)");
    codeLeft -= bytes.length;
    const module = construct(RealModule, [bytes]);
    apply(wmSet, modulePages, [module, definedPages(bytes)]);
    return module;
  }

  function instantiateSync(module, imports) {
    if (!apply(wmHas, modulePages, [module])) {
      throw new TypeErrorCtor("WebAssembly.Instance needs a module from WebAssembly.Module or WebAssembly.compile");
    }
    const count = apply(wmGet, modulePages, [module]);
    reserve(count);
    try {
      return construct(RealInstance, imports === undefined ? [module] : [module, imports]);
    } catch (error) {
      pagesLeft += count;
      throw error;
    }
  }

  function Module(source) {
    if (new.target === undefined) throw new TypeErrorCtor("WebAssembly.Module must be called with new");
    return compileSync(source);
  }
  function Instance(module, imports) {
    if (new.target === undefined) throw new TypeErrorCtor("WebAssembly.Instance must be called with new");
    return instantiateSync(module, imports);
  }
  function Memory(descriptor) {
    if (new.target === undefined) throw new TypeErrorCtor("WebAssembly.Memory must be called with new");
    if (typeof descriptor !== "object" || descriptor === null) throw new TypeErrorCtor("WebAssembly.Memory needs a descriptor object");
    const initial = NumberCtor(descriptor.initial);
    const rawMaximum = descriptor.maximum;
    const shared = descriptor.shared === true;
    if (rawMaximum === undefined) {
      throw new RangeErrorCtor("new WebAssembly.Memory needs a maximum, e.g. {initial: 1, maximum: 16} (1 MB)");
    }
    const maximum = NumberCtor(rawMaximum);
    if (!isInteger(maximum) || maximum < 0 || maximum > MAX_PAGES || !isInteger(initial) || initial < 0 || initial > maximum) {
      throw new RangeErrorCtor("WebAssembly.Memory needs whole numbers of pages with 0 <= initial <= maximum <= 65536");
    }
    reserve(maximum);
    try {
      return construct(RealMemory, [{ __proto__: null, initial, maximum, shared }]);
    } catch (error) {
      pagesLeft += maximum;
      throw error;
    }
  }

  function settle(work) {
    try {
      return apply(promiseResolve, PromiseCtor, [work()]);
    } catch (error) {
      return apply(promiseReject, PromiseCtor, [error]);
    }
  }

  for (const [wrapper, real] of [[Module, RealModule], [Instance, RealInstance], [Memory, RealMemory]]) {
    defineProperty(wrapper, "prototype", { value: real.prototype, writable: false });
    defineProperty(real.prototype, "constructor", { value: wrapper, writable: false, configurable: false });
    freeze(real.prototype);
  }
  defineProperty(Module, "imports", { value: RealModule.imports });
  defineProperty(Module, "exports", { value: RealModule.exports });
  defineProperty(Module, "customSections", { value: RealModule.customSections });
  freeze(Module);
  freeze(Instance);
  freeze(Memory);

  const namespace = {
    Module,
    Instance,
    Memory,
    Table: Real.Table,
    Global: Real.Global,
    Tag: Real.Tag,
    Exception: Real.Exception,
    CompileError: Real.CompileError,
    LinkError: Real.LinkError,
    RuntimeError: Real.RuntimeError,
    validate: (source) => apply(realValidate, Real, [bytesOf(source)]),
    compile: (source) => settle(() => compileSync(source)),
    instantiate: (source, imports) =>
      settle(() => {
        if (apply(wmHas, modulePages, [source])) return instantiateSync(source, imports);
        const module = compileSync(source);
        return { module, instance: instantiateSync(module, imports) };
      }),
  };
  for (const key of ["Table", "Global", "Tag", "Exception"]) if (namespace[key] === undefined) delete namespace[key];
  return freeze(namespace);
})`;
