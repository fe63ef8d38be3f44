import { useLoaderData } from "react-router";
import { WritingPage } from "~/components/writing/writing-page";
import type { Route } from "./+types/short-writing";
import { writingAction, writingLoader } from "./writing-page.server";

export const meta: Route.MetaFunction = () => [{ title: "短篇仿写 - 砚台" }];

export async function loader({ request }: Route.LoaderArgs) {
  return writingLoader(request, "short");
}

export async function action({ request }: Route.ActionArgs) {
  return writingAction(request, "short");
}

export default function ShortWriting({ actionData }: Route.ComponentProps) {
  return <WritingPage data={useLoaderData<typeof loader>()} actionData={actionData} />;
}
