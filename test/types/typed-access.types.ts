/**
 * Type-level tests of typed access from one definition, checked by `npm run typecheck`:
 * `client.resource(User)`, `factory.informer(User)` and `factory.lister(User)` give `User`
 * objects with no cast, and refuse what does not fit. Every line marked `@ts-expect-error` must
 * fail to compile (or tsc reports the unused directive). Never run: `access` is only checked.
 */
import type { InformerFactory } from "kontroller/cache";
import type { Client } from "kontroller/client";
import { configMaps, defineResource, type ResourceOf } from "kontroller/resources";
import { Type } from "typebox";

const Widget = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  spec: Type.Object({
    size: Type.Integer(),
    color: Type.Union([Type.Literal("red"), Type.Literal("blue")]),
  }),
  status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
});
type Widget = ResourceOf<typeof Widget>;

export async function access(client: Client, factory: InformerFactory): Promise<void> {
  // The client: reads return Widgets, writes take them.
  const widgets = client.resource(Widget, { namespace: "default" });
  const w = await widgets.get("a");
  const size: number = w.spec.size;
  const color: "red" | "blue" = w.spec.color;
  const ready: boolean | undefined = w.status?.ready;
  const listed: Widget[] = (await widgets.list()).items;
  await widgets.create(Widget.object({ metadata: { name: "b" }, spec: { size: 1, color: "red" } }));
  const green = { size: 1, color: "green" };
  // @ts-expect-error a color the schema does not allow
  await widgets.create(Widget.object({ metadata: { name: "c" }, spec: green }));
  // @ts-expect-error a ConfigMap is not a Widget
  await widgets.update(await client.resource(configMaps).get("cm"));
  // @ts-expect-error spec.size is a number
  const wrong: string = w.spec.size;

  // The informer: handlers get Widgets.
  const informer = factory.informer(Widget);
  informer.addEventHandler({
    onAdd: (obj) => {
      const n: number = obj.spec.size;
      void n;
    },
    onUpdate: (oldObj, newObj) => {
      const grew: boolean = newObj.spec.size > oldObj.spec.size;
      void grew;
    },
  });
  informer.addEventHandler({
    // @ts-expect-error a Widget has no data
    onAdd: (obj) => obj.data,
  });

  // The lister: reads from the cache are Widgets.
  const lister = factory.lister(Widget);
  const cached: Widget = lister.get("default", "a");
  const all: Widget[] = lister.namespace("default").list();
  const maybe: Widget | undefined = lister.tryGet("default", "a");
  // @ts-expect-error tryGet may find nothing: its result is not a Widget for sure
  const surely: Widget = lister.namespace("default").tryGet("a");
  // @ts-expect-error the lister's objects are Widgets, not ConfigMaps
  const cm: ResourceOf<typeof configMaps> = lister.get("default", "a");

  void [size, color, ready, listed, wrong, cached, all, cm, maybe, surely];
}
