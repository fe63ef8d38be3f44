import { redirect } from "react-router";

/** docs/product.md D4: /home is the landing button's target and means the home page. */
export function loader() {
  return redirect("/");
}
