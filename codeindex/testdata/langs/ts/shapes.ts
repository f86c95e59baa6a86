import { double } from "./util";

export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return double(this.side);
  }
  describe(): string {
    return `area ${this.area()}`;
  }
}
