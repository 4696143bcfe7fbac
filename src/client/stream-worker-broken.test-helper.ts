/** A stream worker module that cannot load (as in a bundle that left the worker out). */
throw new Error("this worker module cannot be loaded");
