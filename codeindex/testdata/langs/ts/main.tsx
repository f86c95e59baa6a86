import * as util from "./util";
import { Square } from "./shapes";

export function App() {
  const s = new Square(2);
  return <div>{util.triple(s.area())}</div>;
}
